/**
 * Reads every file under a project's `.peaks/` and checks it with the real
 * schemas from lib/state, then checks the invariants that prove each file
 * holds only complete operations (see docs/reliability.md for the list).
 * Used after fault injection, load runs and hostile-input cases.
 */
import { z } from "../../lib/infra/zod.ts";
import { join, relative } from "../../lib/infra/std.ts";
import { sessionSchemas } from "../../lib/state/session.ts";
import { presenceSchemas } from "../../lib/state/presence.ts";
import { preferencesSchemas } from "../../lib/state/preferences.ts";
import { type DispatchRecord, recordSchemas } from "../../lib/state/record.ts";
import { isRecordFileName, isTerminal, MAX_HEARTBEATS } from "../../lib/state/record.ts";
import { type Batch, batchSchemas } from "../../lib/state/batch.ts";
import { channelSchemas } from "../../lib/state/channel.ts";
import { parseRequest } from "../../lib/request/file.ts";
import { scanResultSchemas } from "../../lib/state/scan_result.ts";
import { overridesSchemas } from "../../lib/state/overrides.ts";
import { readHistory } from "../../lib/request/history.ts";

const { SessionBindingSchema, SessionMetaSchema } = sessionSchemas(z);
const { ContextReadingSchema, PresenceSchema } = presenceSchemas(z);
const { PreferencesSchema } = preferencesSchemas(z);
const { RecordFileSchema } = recordSchemas(z);
const { BatchSchema } = batchSchemas(z);
const { ChannelSchema } = channelSchemas(z);
const { ScanResultSchema } = scanResultSchemas(z);
const { OverrideLedgerSchema } = overridesSchemas(z);

export interface StateReport {
  files: number;
  /** JSON and request files that were parsed and schema-checked. */
  checked: number;
  /** Leftover `*.tmp` files of killed writers (never a file's only copy). */
  tempFiles: string[];
  /** JSON files under .peaks/ that no known schema covers (parsed only). */
  unknownJson: string[];
  violations: string[];
  /** Ledger entries of transitions that were killed before their request was written. */
  orphanOverrides: string[];
  records: Map<string, DispatchRecord>;
  batches: Map<string, Batch>;
  channels: Map<string, z.output<typeof ChannelSchema>>;
  requests: Map<string, { state: string; history: string[]; text: string }>;
  ledgers: Map<string, z.output<typeof OverrideLedgerSchema>>;
}

const TEMP = /\.[0-9a-f]{8}\.tmp$/;

/** Which schema a `.peaks/`-relative path must satisfy (forward slashes). */
export function schemaFor(rel: string): z.ZodType | "request" | undefined {
  const parts = rel.split("/");
  if (rel === "preferences.json") return PreferencesSchema;
  if (rel === "project-scan/project-scan.json") return ScanResultSchema;
  if (parts[0] === "_runtime") {
    if (parts.length === 2 && parts[1] === "session.json") return SessionBindingSchema;
    const [, , ...rest] = parts;
    const tail = rest.join("/");
    if (tail === "session.json") return SessionMetaSchema;
    if (tail === "presence.json" || /^presence\/[^/]+\.json$/.test(tail)) return PresenceSchema;
    if (tail === "context.json") return ContextReadingSchema;
    if (tail === "request-overrides.json") return OverrideLedgerSchema;
    if (/^[a-z]+\/requests\/[^/]+\.md$/.test(tail)) return "request";
  }
  if (parts[0] === "_sub_agents" && parts[1] !== "_archive") {
    const name = parts.at(-1)!;
    if (parts.length === 3 && isRecordFileName(name)) return RecordFileSchema;
    if (parts.length === 3 && /^batch-.+\.json$/.test(name)) return BatchSchema;
    if (parts.length === 4 && parts[2] === "shared" && name.endsWith(".json")) return ChannelSchema;
  }
  return undefined;
}

async function walk(dir: string, out: string[]): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) await walk(path, out);
    else if (entry.isFile) out.push(path);
  }
}

function checkRecord(rel: string, r: DispatchRecord, v: string[]): void {
  const bad = (what: string) => v.push(`${rel}: ${what}`);
  if (isTerminal(r.status)) {
    if (r.outcome !== r.status) bad(`terminal status ${r.status} but outcome ${r.outcome}`);
    if (!r.completedAt) bad(`terminal status ${r.status} without completedAt`);
  } else if (r.outcome !== null) bad(`open status ${r.status} with outcome ${r.outcome}`);
  if (r.disposed !== (r.disposedAt !== null)) bad("disposed and disposedAt disagree");
  if (r.heartbeats.length > MAX_HEARTBEATS) bad(`${r.heartbeats.length} heartbeats kept`);
  const last = r.heartbeats.at(-1);
  if ((last?.at ?? null) !== r.lastBeatAt) bad("lastBeatAt is not the newest heartbeat's time");
  for (let i = 1; i < r.heartbeats.length; i++) {
    if (r.heartbeats[i - 1].at > r.heartbeats[i].at) bad("heartbeats out of time order");
  }
  if (r.updatedAt < r.createdAt) bad("updatedAt before createdAt");
  if (r.promptSize !== new TextEncoder().encode(r.prompt).length) bad("promptSize != prompt bytes");
}

const HISTORY_LINE = /^\S+ (?:created as (\S+)|(\S+) → (\S+)(?: \((.*)\))?)$/;

function checkRequestHistory(rel: string, state: string, history: string[], v: string[]): void {
  if (history.length === 0) return;
  let current: string | undefined;
  for (const line of history) {
    const m = HISTORY_LINE.exec(line);
    if (!m) {
      v.push(`${rel}: history line not understood: ${line}`);
      return;
    }
    if (m[1]) current = m[1];
    else {
      if (current !== undefined && m[2] !== current) {
        v.push(`${rel}: history jumps from ${current} but the next line starts at ${m[2]}`);
      }
      current = m[3];
    }
  }
  if (current !== state) v.push(`${rel}: front matter says ${state}, history ends at ${current}`);
}

/** Scans `<root>/.peaks` and returns what it found; `violations` is empty when all is well. */
export async function checkState(root: string): Promise<StateReport> {
  const peaks = join(root, ".peaks");
  const paths: string[] = [];
  await walk(peaks, paths);
  const report: StateReport = {
    files: paths.length,
    checked: 0,
    tempFiles: [],
    unknownJson: [],
    violations: [],
    orphanOverrides: [],
    records: new Map(),
    batches: new Map(),
    channels: new Map(),
    requests: new Map(),
    ledgers: new Map(),
  };
  const v = report.violations;
  const existing = new Set(paths.map((p) => relative(peaks, p).replaceAll("\\", "/")));
  for (const path of paths) {
    const rel = relative(peaks, path).replaceAll("\\", "/");
    if (TEMP.test(rel)) {
      report.tempFiles.push(rel);
      continue;
    }
    if (rel.endsWith(".lock")) continue;
    const schema = schemaFor(rel);
    if (schema === undefined) {
      if (!rel.endsWith(".json")) continue;
      try {
        JSON.parse(await Deno.readTextFile(path));
        report.unknownJson.push(rel);
      } catch (error) {
        v.push(`${rel}: not JSON (${(error as Error).message})`);
      }
      continue;
    }
    const text = await Deno.readTextFile(path);
    report.checked++;
    if (schema === "request") {
      try {
        const doc = await parseRequest(path, text);
        const history = readHistory(doc.body);
        report.requests.set(rel, { state: doc.meta.state, history, text });
        checkRequestHistory(rel, doc.meta.state, history, v);
        if ((doc.meta.state === "blocked") !== (doc.meta.blockedFrom !== undefined)) {
          v.push(`${rel}: state ${doc.meta.state} and blockedFrom disagree`);
        }
      } catch (error) {
        v.push(`${rel}: ${(error as Error).message}`);
      }
      continue;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      v.push(`${rel}: not JSON (${(error as Error).message}; ${text.length} bytes)`);
      continue;
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      v.push(`${rel}: schema: ${parsed.error.issues.slice(0, 2).map((i) => i.message).join("; ")}`);
      continue;
    }
    if (schema === RecordFileSchema) {
      const record = parsed.data as DispatchRecord;
      report.records.set(rel, record);
      checkRecord(rel, record, v);
    } else if (schema === BatchSchema) report.batches.set(rel, parsed.data as Batch);
    else if (schema === ChannelSchema) {
      const channel = parsed.data as z.output<typeof ChannelSchema>;
      report.channels.set(rel, channel);
      const keys = channel.entries.map((e) => e.key);
      if (new Set(keys).size !== keys.length) v.push(`${rel}: a key appears twice`);
      for (const e of channel.entries) {
        const size = new TextEncoder().encode(JSON.stringify(e.value)).length;
        if (size !== e.valueSize) v.push(`${rel}: ${e.key} valueSize ${e.valueSize} != ${size}`);
      }
    } else if (schema === OverrideLedgerSchema) {
      report.ledgers.set(rel, parsed.data as z.output<typeof OverrideLedgerSchema>);
    }
  }
  checkBatches(report, existing);
  checkLedgers(report);
  return report;
}

/**
 * Batch members are numbered 1..count without gaps (after the archived ones,
 * when cleanup archived an earlier batch of the same id), each backed by its
 * record (same batch, same number), and every record of a batch is a member:
 * a dispatch is the record plus its membership, or neither.
 */
function checkBatches(report: StateReport, existing: Set<string>): void {
  const v = report.violations;
  const byBatch = new Map<string, Array<[string, DispatchRecord]>>();
  for (const [rel, record] of report.records) {
    const key = `${rel.split("/")[1]}/${record.batchId}`;
    byBatch.set(key, [...(byBatch.get(key) ?? []), [rel, record]]);
  }
  for (const [rel, batch] of report.batches) {
    const sid = rel.split("/")[1];
    const dir = `_sub_agents/${sid}`;
    // Pending entries are a join in progress or killed: those whose record exists are members.
    const members = [...batch.members];
    for (const entry of batch.pending ?? []) {
      if (!existing.has(`${dir}/${entry.record}`)) break;
      members.push(entry);
    }
    const archived = batch.archivedCount ?? 0;
    const count = batch.pending ? members.at(-1)?.n ?? archived : batch.count;
    if (count - archived !== members.length) {
      v.push(`${rel}: count ${count} (${archived} archived) but ${members.length} members`);
    }
    members.forEach((m, i) => {
      if (m.n !== archived + i + 1) v.push(`${rel}: member #${i + 1} has number ${m.n}`);
      const recordRel = `${dir}/${m.record}`;
      const record = report.records.get(recordRel);
      if (!record) {
        if (!existing.has(recordRel)) v.push(`${rel}: member ${m.n} has no record ${m.record}`);
        return;
      }
      if (record.batchId !== batch.batchId) v.push(`${recordRel}: in batch ${batch.batchId}`);
      if (record.dispatchedInBatch !== m.n) {
        v.push(`${recordRel}: dispatchedInBatch ${record.dispatchedInBatch}, member ${m.n}`);
      }
    });
    const listed = new Set(members.map((m) => `${dir}/${m.record}`));
    for (const [recordRel] of byBatch.get(`${sid}/${batch.batchId}`) ?? []) {
      if (!listed.has(recordRel)) {
        v.push(`${recordRel}: record of ${batch.batchId} not in its batch`);
      }
    }
  }
  for (const [key, entries] of byBatch) {
    const numbers = entries.map(([, r]) => r.dispatchedInBatch);
    if (new Set(numbers).size !== numbers.length) {
      v.push(`batch ${key}: two records share a number (${numbers.sort((a, b) => a - b)})`);
    }
  }
}

/** Every allow-incomplete use is in both the ledger and the request's history, or in neither. */
function checkLedgers(report: StateReport): void {
  const v = report.violations;
  const sessions = new Set([...report.requests.keys()].map((rel) => rel.split("/")[1]));
  for (const sid of sessions) {
    const rel = `_runtime/${sid}/request-overrides.json`;
    const ledger = report.ledgers.get(rel) ?? { version: 1, sessionId: sid, entries: [] };
    const lines: string[] = [];
    for (const [requestRel, request] of report.requests) {
      if (requestRel.split("/")[1] !== sid) continue;
      lines.push(...request.history.filter((line) => line.includes("allow-incomplete (")));
    }
    // An entry without its history line is a transition killed before its request was
    // written: it never happened, and readers do not count it (lib/request/overrides.ts).
    for (const entry of ledger.entries) {
      const hit = lines.some((l) => l.startsWith(`${entry.at} `) && l.includes(entry.reason));
      if (!hit) report.orphanOverrides.push(`${rel}: ${entry.at} (${entry.reason})`);
    }
    if (lines.length > 3) v.push(`${rel}: ${lines.length} allow-incomplete transitions (limit 3)`);
    for (const line of lines) {
      const at = line.split(" ")[0];
      if (!ledger.entries.some((e) => e.at === at)) {
        v.push(`${rel}: transition "${line}" is missing from the ledger`);
      }
    }
  }
}
