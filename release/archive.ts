/**
 * tar.gz and zip writers in plain TypeScript, so packaging needs nothing but
 * Deno (no system zip, the same bytes on every build machine). Entries carry
 * fixed owners and one timestamp, which keeps archives reproducible.
 */

export interface ArchiveEntry {
  /** Forward-slash path inside the archive; directories end with "/". */
  path: string;
  /** File contents; absent for directories. */
  data?: Uint8Array;
  /** Permission bits, e.g. 0o755. */
  mode: number;
}

const encoder = new TextEncoder();

async function pipeThrough(data: Uint8Array, transform: CompressionStream): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function checkPath(path: string): void {
  const segments = path.replace(/\/$/, "").split("/");
  if (path.startsWith("/") || segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new Error(`refusing archive path "${path}": it must be relative and plain`);
  }
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** ustar keeps 100 bytes of name plus a 155-byte prefix split at a slash. */
function splitName(path: string): { name: string; prefix: string } | undefined {
  if (encoder.encode(path).length <= 100) return { name: path, prefix: "" };
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100) {
      return { name, prefix };
    }
  }
  return undefined;
}

/** A pax record `<len> path=<path>\n`, whose length counts its own digits. */
function paxPathRecord(path: string): Uint8Array {
  const body = ` path=${path}\n`;
  const bodyLength = encoder.encode(body).length;
  let length = bodyLength + 1;
  while (String(length).length + bodyLength !== length) length = String(length).length + bodyLength;
  return encoder.encode(`${length}${body}`);
}

function tarHeader(
  name: string,
  prefix: string,
  type: string,
  mode: number,
  size: number,
  mtime: number,
): Uint8Array {
  const header = new Uint8Array(512);
  const put = (text: string, offset: number) => header.set(encoder.encode(text), offset);
  put(name, 0);
  put(octal(mode, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(mtime, 12), 136);
  put("        ", 148);
  put(type, 156);
  put("ustar\0" + "00", 257);
  put("root", 265);
  put("root", 297);
  put(prefix, 345);
  const sum = header.reduce((total, byte) => total + byte, 0);
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return header;
}

/** A gzip-compressed ustar archive of the entries, in the order given. */
export async function tarGz(entries: ArchiveEntry[], mtime: Date): Promise<Uint8Array> {
  const seconds = Math.floor(mtime.getTime() / 1000);
  const parts: Uint8Array[] = [];
  const pushData = (data: Uint8Array) => {
    parts.push(data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) parts.push(new Uint8Array(pad));
  };
  for (const entry of entries) {
    checkPath(entry.path);
    const isDir = entry.data === undefined;
    let split = splitName(entry.path);
    if (!split) {
      // Too long for ustar: a pax header carries the full path, the ustar name is a stand-in.
      const record = paxPathRecord(entry.path);
      parts.push(tarHeader("PaxHeader", "", "x", 0o644, record.length, seconds));
      pushData(record);
      split = { name: entry.path.slice(-99).replace(/^[^/]*\//, ""), prefix: "" };
    }
    const size = isDir ? 0 : entry.data!.length;
    parts.push(tarHeader(split.name, split.prefix, isDir ? "5" : "0", entry.mode, size, seconds));
    if (entry.data) pushData(entry.data);
  }
  parts.push(new Uint8Array(1024));
  const tar = concat(parts);
  // Round up to the 10 KiB record size classic tar readers expect.
  const record = 10240;
  const padded = new Uint8Array(Math.ceil(tar.length / record) * record);
  padded.set(tar);
  return await pipeThrough(padded, new CompressionStream("gzip"));
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function dosDateTime(date: Date): { time: number; day: number } {
  const year = Math.max(date.getUTCFullYear(), 1980);
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) |
      Math.floor(date.getUTCSeconds() / 2),
    day: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

const UTF8_NAMES = 0x0800;
const MADE_BY_UNIX = (3 << 8) | 20;

/** A zip archive (deflate, UTF-8 names, unix modes in the external attributes). */
export async function zip(entries: ArchiveEntry[], mtime: Date): Promise<Uint8Array> {
  const { time, day } = dosDateTime(mtime);
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    checkPath(entry.path);
    const name = encoder.encode(entry.path);
    const isDir = entry.data === undefined;
    const raw = entry.data ?? new Uint8Array(0);
    const deflated = isDir ? raw : await pipeThrough(raw, new CompressionStream("deflate-raw"));
    const method = isDir ? 0 : 8;
    const crc = crc32(raw);
    if (offset + 30 + name.length + deflated.length > 0xffffffff) {
      throw new Error("archive larger than 4 GiB: zip64 is not supported");
    }

    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, UTF8_NAMES, true);
    local.setUint16(8, method, true);
    local.setUint16(10, time, true);
    local.setUint16(12, day, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, deflated.length, true);
    local.setUint32(22, raw.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    locals.push(new Uint8Array(local.buffer), name, deflated);

    const central = new DataView(new ArrayBuffer(46));
    central.setUint32(0, 0x02014b50, true);
    central.setUint16(4, MADE_BY_UNIX, true);
    central.setUint16(6, 20, true);
    central.setUint16(8, UTF8_NAMES, true);
    central.setUint16(10, method, true);
    central.setUint16(12, time, true);
    central.setUint16(14, day, true);
    central.setUint32(16, crc, true);
    central.setUint32(20, deflated.length, true);
    central.setUint32(24, raw.length, true);
    central.setUint16(28, name.length, true);
    const fileType = isDir ? 0o040000 : 0o100000;
    central.setUint32(38, (((fileType | entry.mode) << 16) | (isDir ? 0x10 : 0)) >>> 0, true);
    central.setUint32(42, offset, true);
    centrals.push(new Uint8Array(central.buffer), name);

    offset += 30 + name.length + deflated.length;
  }
  const directory = concat(centrals);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, directory.length, true);
  end.setUint32(16, offset, true);
  return concat([...locals, directory, new Uint8Array(end.buffer)]);
}
