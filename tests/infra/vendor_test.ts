/**
 * lib/infra/vendor holds the std functions peaks uses, bundled from deno-std
 * into one module per package (tools/vendor.ts). The committed
 * bundles must be exactly what `deno task vendor` makes from the locked
 * package, so they can never drift from it.
 */
import { assertEquals } from "@std/assert";
import { BUNDLES, renderBundle } from "../../tools/vendor.ts";

for (const file of Object.keys(BUNDLES)) {
  Deno.test(`lib/infra/vendor/${file} is deno-std bundled as is (run \`deno task vendor\`)`, async () => {
    const committed = await Deno.readTextFile(
      new URL(`../../lib/infra/vendor/${file}`, import.meta.url),
    );
    assertEquals(committed, await renderBundle(file));
  });
}
