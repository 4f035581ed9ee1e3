// mystmd plugin of the Rebalance book's PDF edition (listed under `project: plugins:` in myst.yml).
//
// On the site and in JupyterLab a code cell tagged `hide-cell` is folded away behind a button; the
// solutions of the exercises use such cells to compute and print their answers ("the hidden cell below
// computes it").  Paper has no button, and mystmd leaves hidden cells out of Typst and LaTeX exports, so
// the answers would be missing from the printed book.  When site/pdf/build.sh builds the PDF it sets
// REBALANCE_PRINT=1, and this transform shows those cells (code and output); every other build is left
// exactly as it was.
const showHiddenCells = {
  name: 'rebalance-print-hidden-cells',
  doc: 'In the PDF build (REBALANCE_PRINT=1), show the code cells tagged hide-cell.',
  stage: 'project',
  plugin: (_opts, utils) => (tree) => {
    if (process.env.REBALANCE_PRINT !== '1') return;
    utils.selectAll('block', tree).forEach((block) => {
      if (block.visibility === 'hide') block.visibility = 'show';
    });
  },
};

export default {
  name: 'Rebalance print edition',
  transforms: [showHiddenCells],
};
