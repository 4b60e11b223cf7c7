/**
 * The demo's UI step photographs the sample project's members page with a real headless Chromium
 * and files the PNG under the session's qa/screenshots/. CI installs Chromium (.ci/run tools);
 * elsewhere the test is ignored, saying why.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import {
  findChromium,
  membersPageHtml,
  storeMembers,
  uiScreenshot,
} from "../../demo/screenshot.ts";

const chromium = await findChromium(Deno.env.get("PATH") ?? "");
const SAMPLE = join(REPO, "demo", "sample-project");

Deno.test("the static members page holds the store's members, escaped", async () => {
  const members = storeMembers(await Deno.readTextFile(join(SAMPLE, "src", "store", "members.ts")));
  assertEquals(members, [
    { name: "Ada Lovelace", role: "Engineer" },
    { name: "Grace Hopper", role: "Engineering manager" },
  ]);
  const html = membersPageHtml([{ name: "<b>x</b>", role: "a & b" }]);
  assert(html.includes("&lt;b&gt;x&lt;/b&gt;") && html.includes("a &amp; b"));
});

Deno.test({
  name: `the UI step takes a real screenshot into qa/screenshots/${
    chromium ? "" : " (ignored: chromium is not on PATH; .ci/run installs it with apt-get)"
  }`,
  ignore: !chromium,
  async fn() {
    await using dir = await tempDir();
    const session = join(dir.path, ".peaks", "_runtime", "2026-12-06-session-abc123");
    const png = await uiScreenshot(SAMPLE, session, "001-profile-page");
    assertEquals(png, join(session, "qa", "screenshots", "001-profile-page-members-page.png"));
    const bytes = await Deno.readFile(png!);
    assertEquals([...bytes.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG");
    // 800×480, as asked: the IHDR chunk holds width and height.
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    assertEquals([view.getUint32(16), view.getUint32(20)], [800, 480]);
    assert(bytes.length > 2000, "more than a blank page");
  },
});
