/** Edit distance (Levenshtein) between two short strings. */
export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j];
      previous[j] = Math.min(
        previous[j] + 1,
        previous[j - 1] + 1,
        diagonal + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[b.length];
}

/**
 * The candidate closest to `input`, or undefined when none is close enough
 * to be a typo (more than a third of the input's letters, at least two,
 * would have to change: `frobnicate` suggests nothing). A candidate that
 * contains the input wins over edit distance, so `disp` finds `dispatch`.
 */
export function nearest(input: string, candidates: readonly string[]): string | undefined {
  const wanted = input.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    let score = editDistance(wanted, lower);
    if (wanted.length >= 3 && lower.includes(wanted)) score = Math.min(score, 1);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return bestScore <= Math.max(2, Math.floor(wanted.length / 3)) ? best : undefined;
}
