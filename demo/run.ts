/** `deno task demo`: the whole workflow on a bundled sample project (being assembled). */
console.log(
  "The demo is not available yet: it needs the dispatch, swarm and detached sub-agent commands.",
);
