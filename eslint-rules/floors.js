// The floors of src/: a module imports from its own floor and from the floors its entry in the table names,
// never from any other. Every import is seen: `import ... from`, `export ... from`, `import('...')` (a
// dynamic import, whose source must then be a plain string), and a type's `import('...')`. Paths outside
// src/ and package names are not this rule's business (no-restricted-imports keeps the packages out).
import path from 'node:path';

/** The floor of a file under src/: its first folder, or the file's own name for a file at the top (index). */
function floorOf(relative) {
  const [first, second] = relative.split(path.sep);
  return second === undefined ? first.replace(/\.(ts|js)$/, '') : first;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'every import points down: a floor of src/ imports only the floors below it' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          floors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        },
        required: ['root', 'floors'],
        additionalProperties: false,
      },
    ],
    messages: {
      upward: '{{from}}/ may not import {{to}}{{slash}} (it may import: {{allowed}})',
      unreadable: 'a dynamic import here must name its module as a plain string, so that its floor can be checked',
    },
  },
  create(context) {
    const { root, floors } = context.options[0];
    const srcRoot = path.resolve(context.cwd, root);
    const file = context.filename;
    const relative = path.relative(srcRoot, file);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return {};
    const from = floorOf(relative);
    const allowed = floors[from];
    if (allowed === undefined) return {};

    const check = (node, source) => {
      if (!source.startsWith('.')) return;
      const target = path.relative(srcRoot, path.resolve(path.dirname(file), source));
      if (target.startsWith('..') || path.isAbsolute(target)) return;
      const to = floorOf(target);
      if (to === from || allowed.includes(to)) return;
      const slash = target.includes(path.sep) ? '/' : '';
      context.report({ node, messageId: 'upward', data: { from, to, slash, allowed: allowed.join(', ') || 'nothing' } });
    };
    const literal = (node) => {
      if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
      if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
      return undefined;
    };

    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => {
        const source = literal(node.source);
        if (source === undefined) context.report({ node, messageId: 'unreadable' });
        else check(node, source);
      },
      TSImportType: (node) => check(node, node.source.value),
    };
  },
};
