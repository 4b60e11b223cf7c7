/**
 * The status line peaks installs, in the real interactive Claude Code under
 * tmux: it renders under the prompt and shows the swarm's progress while
 * the sub-agents run, and follows when one of them finishes.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { CLAUDE } from "./support/hosts.ts";
import { waitFor, world } from "./support/scenario.ts";
import { sideAnswer, text, type View } from "./support/standin.ts";
import { heartbeatArgs } from "../support/subagent.ts";

const DAG = {
  nodes: ["rd-planning", "qa-test-cases", "ui"].map((role, i) => ({
    id: `n${i}`,
    role,
    prompt: `plan as ${role}`,
  })),
  edges: [],
};

Deno.test(
  "interactive claude in tmux: peaks' status line shows the swarm running, then one of three done",
  {
    sanitizeOps: false,
    sanitizeResources: false,
  },
  async () => {
    await using w = await world(
      CLAUDE,
      (view: View) => view.tools.length ? text("Hello.") : sideAnswer(view),
      {
        files: { "dag.json": JSON.stringify(DAG) },
      },
    );
    const { sandbox } = w;
    // A first interactive start asks about the custom API key and the folder's trust: answered here.
    const state = JSON.parse(await Deno.readTextFile(join(sandbox.home, ".claude.json")));
    state.customApiKeyResponses = { approved: ["test-key"], rejected: [] };
    state.projects = {
      [sandbox.project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true },
    };
    await Deno.writeTextFile(join(sandbox.home, ".claude.json"), JSON.stringify(state));

    const peaks = async (...args: string[]) => {
      const result = await sandbox.peaks([...args, "--json"], { CLAUDECODE: "1" });
      assertEquals(result.code, 0, result.stdout + result.stderr);
      return result.json;
    };
    await peaks("workspace", "init");
    assertEquals((await peaks("statusline", "install")).data.action, "installed");
    const fanout = await peaks("sub-agent", "dispatch", "--from-dag", "dag.json");
    const records: string[] = fanout.data.records;
    for (const record of records) {
      await peaks(
        ...heartbeatArgs(record, "30"),
      );
    }

    const socket = join(sandbox.root, "tmux.sock");
    const tmux = (...args: string[]) =>
      sandbox.run("tmux", {
        args: ["-S", socket, ...args],
        env: { ...w.hostEnv, TERM: "xterm-256color" },
        timeoutMs: 30_000,
      });
    try {
      const started = await tmux(
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "40",
        "-s",
        "host",
        "claude",
      );
      assertEquals(started.code, 0, started.stderr);
      const screen = async () => (await tmux("capture-pane", "-p", "-t", "host")).stdout;
      const running = await waitFor("the status line with the swarm running", async () => {
        const shown = await screen();
        return shown.includes("peaks · swarm 3/3 running") ? shown : undefined;
      }, 90_000);
      assert(running.includes("⛰"), running);

      // One sub-agent finishes; the next render (after the next exchange) shows it.
      await peaks(
        "sub-agent",
        "heartbeat",
        "--record",
        records[0],
        "--status",
        "done",
        "--progress",
        "100",
      );
      await tmux("send-keys", "-t", "host", "hello", "Enter");
      const moved = await waitFor("the status line after one sub-agent finished", async () => {
        const shown = await screen();
        return /peaks · swarm 1\/3 done|peaks · swarm 2\/3 running/.test(shown) ? shown : undefined;
      }, 90_000);
      assert(!moved.includes("swarm 3/3 running"), moved);
    } finally {
      await tmux("kill-server");
    }
  },
);
