// mystmd plugin of the Rebalance book's PDF edition (listed under `project: plugins:` in myst.yml): three
// transforms that act only when site/pdf/build.sh builds the PDF (REBALANCE_PRINT=1).
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

// mystmd's Typst writer has no rule for the `{glossary}` directive and drops it, with every term the chapters
// link to ({term}`...` becomes a link to the label term-NAME).  For the PDF the glossary becomes the term
// list it holds, each term carrying its label (a Typst metadata element) so that the links land on it.
const printGlossary = {
  name: 'rebalance-print-glossary',
  doc: 'In the PDF build (REBALANCE_PRINT=1), print glossary directives as labelled term lists.',
  stage: 'project',
  plugin: (_opts, utils) => (tree) => {
    if (process.env.REBALANCE_PRINT !== '1') return;
    const unwrap = (parent) => {
      (parent.children ?? []).forEach((child, index) => {
        if (child.type === 'glossary') {
          parent.children.splice(index, 1, ...(child.children ?? []));
        }
      });
      (parent.children ?? []).forEach(unwrap);
    };
    unwrap(tree);
    utils.selectAll('definitionTerm', tree).forEach((term) => {
      if (!term.identifier) return;
      const label = JSON.stringify(String(term.identifier));
      term.children = [...(term.children ?? []), { type: 'raw', typst: `#metadata("term")#label(${label})` }];
    });
  },
};

// A generic `{admonition}` with a title (the chapters' "Learning objectives", "Summary") has no kind the Typst
// writer knows, and it drops the block ("Unknown admonition kind").  For the PDF such a block takes the kind
// its class names (tip, note, ...), or note.
const KINDS = ['attention', 'caution', 'danger', 'error', 'hint', 'important', 'note', 'seealso', 'tip', 'warning'];
const printAdmonitions = {
  name: 'rebalance-print-admonitions',
  doc: 'In the PDF build (REBALANCE_PRINT=1), give generic admonitions a kind the Typst writer knows.',
  stage: 'project',
  plugin: (_opts, utils) => (tree) => {
    if (process.env.REBALANCE_PRINT !== '1') return;
    utils.selectAll('admonition', tree).forEach((node) => {
      if (KINDS.includes(node.kind)) return;
      const classes = String(node.class ?? '').split(/\s+/);
      node.kind = classes.find((c) => KINDS.includes(c)) ?? 'note';
    });
  },
};

export default {
  name: 'Rebalance print edition',
  transforms: [showHiddenCells, printGlossary, printAdmonitions],
};
