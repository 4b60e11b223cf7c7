/** Function lengths in `lib/`, measured on Deno's own syntax tree. */

function* walk(dir: string, base: string): Generator<string> {
  for (const entry of Deno.readDirSync(`${base}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path, base);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;

function nameOf(node: FunctionNode): string {
  if (node.type === "FunctionDeclaration" && node.id) return node.id.name;
  const parent = node.parent;
  if (parent.type === "MethodDefinition" || parent.type === "Property") {
    const key = parent.key;
    if (key.type === "Identifier") return key.name;
    if (key.type === "Literal") return String(key.value);
  }
  if (parent.type === "VariableDeclarator" && parent.id.type === "Identifier") {
    return parent.id.name;
  }
  return "(anonymous)";
}

const measure: Deno.lint.Plugin = {
  name: "length",
  rules: {
    functions: {
      create(context) {
        const check = (node: FunctionNode) => {
          const [start, end] = node.range;
          const text = context.sourceCode.text;
          const lines = text.slice(start, end).split("\n").length;
          const line = text.slice(0, start).split("\n").length;
          context.report({ node, message: JSON.stringify({ name: nameOf(node), line, lines }) });
        };
        return {
          FunctionDeclaration: check,
          FunctionExpression: check,
          ArrowFunctionExpression: check,
        };
      },
    },
  },
};

export interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** Every function in one source text with its length in lines. */
export function functionLengths(file: string, source: string): FunctionLength[] {
  return Deno.lint.runPlugin(measure, file, source).map((d) => ({
    file,
    ...JSON.parse(d.message),
  }));
}

/** `file:line name (n lines)` for each function in lib/ longer than `max` lines, longest first. */
export function longFunctions(root: string, max: number): string[] {
  const all: FunctionLength[] = [];
  for (const file of walk("lib", root)) {
    all.push(...functionLengths(file, Deno.readTextFileSync(`${root}/${file}`)));
  }
  return all.filter((f) => f.lines > max).sort((a, b) => b.lines - a.lines)
    .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
}
