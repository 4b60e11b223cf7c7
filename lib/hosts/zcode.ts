/** ZCode: its docs describe specialised agents but name no tool a model calls (unverified). */
import type { HostDecl } from "./host.ts";

export const host: HostDecl = {
  id: "zcode",
  name: "ZCode",
  envVars: [],
  projectDir: null,
  contextWindow: 128_000,
  subAgent: null,
  skills: null,
  mcp: null,
  statusLine: false,
  hooks: null,
  vendor: null,
  packaging: null,
  permissions: { env: [], run: [] },
};
