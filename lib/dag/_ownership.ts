/**
 * What slices own: project-relative files or folders (`src/api/`,
 * `src/app.ts`). Within one level, where slices run at the same time, no two
 * slices may own the same path or a path inside another's: each overlap is
 * named with both slices. Paths are checked as written, never resolved.
 */
/** A node as far as ownership goes (the DAG node has more). */
interface Owner {
  id: string;
  owns?: string[];
}

export interface OwnershipProblem {
  kind: "ownership";
  message: string;
  nodes: string[];
}

/** The path as compared (`./src//api/` -> `src/api`), or the reason it cannot be owned. */
export function ownedPath(raw: string): { path: string } | { error: string } {
  const path = raw.replaceAll("\\", "/").replace(/\/+/g, "/").replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "");
  if (path === "" || path === ".") return { error: "owns the whole project" };
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return { error: "is absolute" };
  if (path.split("/").some((s) => s === ".." || s === ".")) {
    return { error: "has a . or .. segment" };
  }
  return { path };
}

/** Per level: bad paths, then overlaps (a path equal to or inside one another slice owns). */
export function ownershipProblems(levels: Owner[][]): OwnershipProblem[] {
  const problems: OwnershipProblem[] = [];
  for (const nodes of levels) {
    const owned: Array<{ key: string; node: string }> = [];
    for (const node of nodes) {
      for (const raw of node.owns ?? []) {
        const checked = ownedPath(raw);
        if ("error" in checked) {
          problems.push({
            kind: "ownership",
            message: `node "${node.id}" owns ${JSON.stringify(raw)}, which ${checked.error}`,
            nodes: [node.id],
          });
        } else owned.push({ key: `${checked.path}/`, node: node.id });
      }
    }
    // Sorted with a trailing slash, a folder comes right before everything inside it.
    owned.sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    const open: Array<{ key: string; node: string }> = [];
    for (const item of owned) {
      while (open.length && !item.key.startsWith(open[open.length - 1].key)) open.pop();
      const outer = open[open.length - 1];
      if (outer && outer.node !== item.node) {
        const same = outer.key === item.key;
        problems.push({
          kind: "ownership",
          message: `nodes "${outer.node}" and "${item.node}" run at the same level and both own ${
            same
              ? item.key.slice(0, -1)
              : `${item.key.slice(0, -1)} (inside ${outer.key.slice(0, -1)})`
          }`,
          nodes: [outer.node, item.node],
        });
      }
      open.push(item);
    }
  }
  return problems;
}
