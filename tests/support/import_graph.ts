/**
 * The import graph of `lib/` (plus the entry point), read from the source
 * with Deno's own parser, and the layering rules it must keep:
 * entry -> kernel (lib/cli) -> commands (lib/commands/<group>) -> topics
 * (lib/<noun>) -> state kinds (lib/state) -> infrastructure (lib/infra).
 */

export interface Edge {
  from: string;
  to: string;
  /** `import("...")` with a string literal: loaded when the code runs. */
  dynamic: boolean;
  /** `import type` / `export type`: erased, never loaded. */
  typeOnly: boolean;
}

export interface ImportGraph {
  /** Repo-relative paths with forward slashes: `peaks.ts`, `lib/infra/fs/lock.ts`. */
  files: string[];
  edges: Edge[];
}

export type Layer = "entry" | "kernel" | "command" | "topic" | "state" | "infra";
const FLOOR: Record<Layer, number> = {
  entry: 0,
  kernel: 1,
  command: 2,
  topic: 3,
  state: 4,
  infra: 5,
};

/** Which floor a file sits on, read from its path alone. */
export function layerOf(file: string): Layer {
  if (!file.startsWith("lib/")) return "entry";
  const top = file.split("/")[1];
  if (top === "cli") return "kernel";
  if (top === "commands") return "command";
  if (top === "state") return "state";
  if (top === "infra") return "infra";
  return "topic";
}

/**
 * The unit a file answers to: `lib/commands/<group>` for commands, the folder
 * that holds it for infrastructure, `lib/<topic>` for everything else.
 */
export function ownerOf(file: string): string {
  const parts = file.split("/");
  const layer = layerOf(file);
  if (layer === "entry") return ".";
  if (layer === "command" || layer === "infra") return parts.slice(0, -1).join("/");
  return parts.slice(0, 2).join("/");
}

/** The top-level folder of lib (`cli`, `commands`, `request`), or `entry`. */
export function topFolder(file: string): string {
  return file.startsWith("lib/") ? file.split("/")[1] : "entry";
}

const isPrivate = (file: string) => file.split("/").pop()!.startsWith("_");

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "." || part === "") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const dir = from.includes("/") ? from.slice(0, from.lastIndexOf("/")) : "";
  return normalize(`${dir}/${specifier}`);
}

interface Found {
  specifier: string;
  dynamic: boolean;
  typeOnly: boolean;
}

const collector: Deno.lint.Plugin = {
  name: "graph",
  rules: {
    imports: {
      create(context) {
        const found = (node: Deno.lint.Node, value: Found) =>
          context.report({ node, message: JSON.stringify(value) });
        return {
          ImportDeclaration(node) {
            found(node, {
              specifier: node.source.value,
              dynamic: false,
              typeOnly: node.importKind === "type",
            });
          },
          ExportNamedDeclaration(node) {
            if (!node.source) return;
            found(node, {
              specifier: node.source.value,
              dynamic: false,
              typeOnly: node.exportKind === "type",
            });
          },
          ExportAllDeclaration(node) {
            found(node, {
              specifier: node.source.value,
              dynamic: false,
              typeOnly: node.exportKind === "type",
            });
          },
          ImportExpression(node) {
            if (node.source.type !== "Literal" || typeof node.source.value !== "string") return;
            found(node, { specifier: node.source.value, dynamic: true, typeOnly: false });
          },
        };
      },
    },
  },
};

/** Every import of one source file, as written. */
export function importsOf(file: string, source: string): Found[] {
  return Deno.lint.runPlugin(collector, file, source).map((d) => JSON.parse(d.message));
}

/** Bare specifiers (npm packages) a file names, for the zod-free checks. */
export interface BareImport {
  from: string;
  specifier: string;
  dynamic: boolean;
  typeOnly: boolean;
}

export interface RepoGraph extends ImportGraph {
  bare: BareImport[];
}

function* walk(dir: string, base: string): Generator<string> {
  for (const entry of Deno.readDirSync(`${base}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path, base);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Reads the graph of `peaks.ts` and `lib/` under `root`. */
export function readImportGraph(root: string): RepoGraph {
  const files = ["peaks.ts", ...walk("lib", root)].sort();
  const edges: Edge[] = [];
  const bare: BareImport[] = [];
  for (const file of files) {
    for (const found of importsOf(file, Deno.readTextFileSync(`${root}/${file}`))) {
      const to = resolveSpecifier(file, found.specifier);
      if (to === undefined) bare.push({ from: file, ...found });
      else edges.push({ from: file, to, dynamic: found.dynamic, typeOnly: found.typeOnly });
    }
  }
  return { files, edges, bare };
}

export interface Problem {
  rule: "upward" | "kernel-eager" | "cross-command" | "private" | "cycle" | "topic-cycle";
  message: string;
}

/** The kernel's one allowed way down to a command: the table's lazy imports. */
const TABLE = "lib/cli/table.ts";

export function layeringProblems(graph: ImportGraph): Problem[] {
  const problems: Problem[] = [];
  for (const edge of graph.edges) {
    const [from, to] = [layerOf(edge.from), layerOf(edge.to)];
    const arrow = `${edge.from} -> ${edge.to}`;
    if (FLOOR[to] < FLOOR[from]) {
      problems.push({
        rule: "upward",
        message: `${arrow}: ${from} imports ${to}, which sits above it`,
      });
    }
    if (from === "kernel" && to === "command" && !(edge.from === TABLE && edge.dynamic)) {
      problems.push({
        rule: "kernel-eager",
        message: `${arrow}: the kernel reaches commands only through the table's lazy imports`,
      });
    }
    if (from === "command" && to === "command" && ownerOf(edge.from) !== ownerOf(edge.to)) {
      problems.push({
        rule: "cross-command",
        message: `${arrow}: what two command groups share belongs in a topic`,
      });
    }
    if (isPrivate(edge.to) && !edge.from.startsWith(`${ownerOf(edge.to)}/`)) {
      problems.push({
        rule: "private",
        message: `${arrow}: ${edge.to} is private to ${ownerOf(edge.to)}/`,
      });
    }
  }
  for (const cycle of eagerCycles(graph)) {
    problems.push({ rule: "cycle", message: `import cycle: ${cycle.join(" -> ")}` });
  }
  for (const cycle of eagerCycles(topicGraph(graph))) {
    problems.push({
      rule: "topic-cycle",
      message: `topics import each other: ${cycle.join(" -> ")}`,
    });
  }
  return problems;
}

/** The topic folders and the imports that load code between them, as a graph of its own. */
export function topicGraph(graph: ImportGraph): ImportGraph {
  const edges = new Map<string, Edge>();
  for (const edge of graph.edges) {
    if (edge.typeOnly || layerOf(edge.from) !== "topic" || layerOf(edge.to) !== "topic") continue;
    const [from, to] = [ownerOf(edge.from), ownerOf(edge.to)];
    if (from !== to) edges.set(`${from} ${to}`, { from, to, dynamic: false, typeOnly: false });
  }
  const files = [...new Set([...edges.values()].flatMap((e) => [e.from, e.to]))];
  return { files, edges: [...edges.values()] };
}

/** Strongly connected groups of files joined by static imports (Tarjan). */
export function eagerCycles(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (edge.dynamic) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    const selfLoop = (next.get(file) ?? []).includes(file);
    if (group.length > 1 || selfLoop) cycles.push(group.reverse());
  };
  for (const file of [...new Set([...graph.files, ...next.keys()])]) {
    if (!index.has(file)) visit(file);
  }
  return cycles;
}

/** Everything a file loads before it runs: static, non-type imports, followed transitively. */
export function staticClosure(graph: ImportGraph, file: string): Set<string> {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (edge.dynamic || edge.typeOnly) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  const seen = new Set<string>();
  const todo = [file];
  while (todo.length) {
    const current = todo.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    todo.push(...(next.get(current) ?? []));
  }
  return seen;
}
