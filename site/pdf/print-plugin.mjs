// mystmd plugin of the Rebalance book (listed under `project: plugins:` in myst.yml).  Every transform but one acts
// only when site/pdf/build.sh builds the PDF (REBALANCE_PRINT=1); every other build is left exactly as it was.
// The exception, `rebalance-cite-name-once`, acts in every build: a citation printed right after the name it cites
// does not print that name a second time.
const PRINT = () => process.env.REBALANCE_PRINT === '1';

// Children of `parent`, recursively, for which `drop(child)` is true are taken out of the tree.
const prune = (parent, drop) => {
  if (!parent.children) return;
  parent.children = parent.children.filter((child) => !drop(child));
  parent.children.forEach((child) => prune(child, drop));
};

// On the site and in JupyterLab a code cell tagged `hide-cell` is folded away behind a button; the
// solutions of the exercises use such cells to compute and print their answers ("the hidden cell below
// computes it").  Paper has no button, and mystmd leaves hidden cells out of Typst and LaTeX exports, so
// the answers would be missing from the printed book.  When site/pdf/build.sh builds the PDF it sets
// REBALANCE_PRINT=1, and this transform shows those cells (code and output).
const showHiddenCells = {
  name: 'rebalance-print-hidden-cells',
  doc: 'In the PDF build (REBALANCE_PRINT=1), show the code cells tagged hide-cell.',
  stage: 'project',
  plugin: (_opts, utils) => (tree) => {
    if (!PRINT()) return;
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
    if (!PRINT()) return;
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
    if (!PRINT()) return;
    utils.selectAll('admonition', tree).forEach((node) => {
      if (KINDS.includes(node.kind)) return;
      const classes = String(node.class ?? '').split(/\s+/);
      node.kind = classes.find((c) => KINDS.includes(c)) ?? 'note';
    });
  },
};

// A chapter's "How we know" boxes (`:::{admonition} How we know: ...` with `:class: dropdown`, CONTRIBUTING.md) hold
// the proof: collapsed on the site, on paper printed in full but compactly, in a smaller type (a Typst set rule at
// the start of the box's body holds only inside it).  The box's code cells are `hide-cell` and print through
// rebalance-print-hidden-cells, as they are (code already prints small).
const HOW_WE_KNOW = /^How we know\b/;
const printProofBoxes = {
  name: 'rebalance-print-how-we-know',
  doc: 'In the PDF build (REBALANCE_PRINT=1), print How we know boxes in a smaller type.',
  stage: 'project',
  plugin: (_opts, utils) => (tree) => {
    if (!PRINT()) return;
    utils.selectAll('admonition', tree).forEach((node) => {
      const title = (node.children ?? []).find((child) => child.type === 'admonitionTitle');
      if (!title || !HOW_WE_KNOW.test(textOf(title))) return;
      const at = node.children.indexOf(title) + 1;
      node.children.splice(at, 0, { type: 'raw', typst: '#set text(size: 0.86em);' });
    });
  },
};

// Plumbing stays off paper.  A code cell tagged `plumbing` is one the printed page loses nothing by: set-up or
// tear-down that prints nothing but a verdict (imports, display options, a cluster started or closed), or a
// self-check whose printed result is only the verdict of a claim the prose states in words (an assertion's
// confirmation, "... agree: True", a table of checks with a `holds` column).  The site and JupyterLab show
// these cells as before; the PDF leaves them out, code and output.  (tests/book/test_print_rules.py: which
// cells must carry the tag, and which may not.)
const PLUMBING = 'plumbing';
const dropPlumbing = {
  name: 'rebalance-print-drop-plumbing',
  doc: 'In the PDF build (REBALANCE_PRINT=1), leave out the code cells tagged plumbing.',
  stage: 'project',
  plugin: () => (tree) => {
    if (!PRINT()) return;
    prune(tree, (node) => node.type === 'block' && (node.data?.tags ?? []).includes(PLUMBING));
  },
};

// A widget's output has a static twin: the chapters print the widget's default figure or table in the same cell
// (or just before it), and the site cannot run widgets either.  On paper the widget output itself would print
// its text/plain fallback, the widget's repr ("VBox(children=(IntSlider(...").  In the PDF it is left out.
const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';
const dropWidgets = {
  name: 'rebalance-print-drop-widgets',
  doc: 'In the PDF build (REBALANCE_PRINT=1), leave out the outputs of ipywidgets (their text repr).',
  stage: 'project',
  plugin: () => (tree) => {
    if (!PRINT()) return;
    prune(tree, (node) => node.type === 'output' && Boolean(node.jupyter_data?.data?.[WIDGET_VIEW]));
  },
};

// A narrative citation ({cite}`kip345`) prints the entry's author, and the book's entries for KIPs, Jira issues
// and Kafka classes carry that name as their author ("KIP-345", "RangeAssignor"), so that a bare {cite} names
// what it cites.  Where the prose names it already, right before the citation ("static membership, KIP-345
// {cite}`kip345`", "`RangeAssignor` {cite}`kafka-range`"), the name would print twice: "KIP-345 KIP-345 (2018)"
// on the site, "KIP-345 KIP-345 [17]" on paper.  There the citation prints without the name: "(2018)" on the
// site, the reference number alone on paper.  (mystmd has rendered the citation's text before this stage:
// "KIP-345 (2018)".)
const textOf = (node) => {
  if (node.type === 'text' || node.type === 'inlineCode') return String(node.value ?? '');
  return (node.children ?? []).map(textOf).join('');
};
const citeNameOnce = {
  name: 'rebalance-cite-name-once',
  doc: 'A narrative citation right after the name it cites does not print the name again (every build).',
  stage: 'project',
  plugin: () => (tree) => {
    const visit = (parent) => {
      (parent.children ?? []).forEach((node, index) => {
        if (node.type === 'cite' && node.kind === 'narrative' && !node.partial) {
          const rendered = (node.children ?? []).map(textOf).join('');
          const match = rendered.match(/^(.+?) \(([^()]*)\)$/);
          const before = parent.children.slice(Math.max(0, index - 3), index).map(textOf).join('');
          const trimmed = before.replace(/[\s(\[`'"\u2018\u201c,;:]+$/u, '');
          if (match && trimmed.endsWith(match[1])) {
            const previous = trimmed.slice(0, trimmed.length - match[1].length);
            if (!/[\p{L}\p{N}_]$/u.test(previous)) {
              node.partial = 'year';
              node.children = [{ type: 'text', value: `(${match[2]})` }];
              if (PRINT()) node.kind = 'parenthetical';
            }
          }
        }
        visit(node);
      });
    };
    visit(tree);
  },
};

export default {
  name: 'Rebalance print edition',
  transforms: [showHiddenCells, dropPlumbing, dropWidgets, citeNameOnce, printGlossary,
    printAdmonitions, printProofBoxes],
};
