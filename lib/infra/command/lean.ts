/**
 * Envelope data without empty fields: the model reading an envelope pays for every byte, and a
 * `null`, `[]` or `{}` tells it nothing an absent field does not. Shallow on purpose: nested
 * values are built lean where they are made.
 */
export function withoutEmpty<T extends Record<string, unknown>>(data: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (
      typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0
    ) continue;
    out[key] = value;
  }
  return out as Partial<T>;
}
