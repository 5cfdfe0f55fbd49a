// Drives code-server (already serving the workspace with the zy extension installed) through
// Debian's chromium. Every check passes, fails, or is skipped because the server lacks a feature;
// any failure makes the exit status 1. Run by ../test-e2e, which sets ZY_E2E_URL and ZY_E2E_SHOTS.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const url = process.env.ZY_E2E_URL;
const shots = process.env.ZY_E2E_SHOTS;
if (!url || !shots) {
    console.error("ZY_E2E_URL and ZY_E2E_SHOTS must be set (run ../test-e2e)");
    process.exit(2);
}
rmSync(shots, { recursive: true, force: true });
mkdirSync(shots, { recursive: true });

const counts = { passed: 0, failed: 0, skipped: 0 };
const report = (word, name, detail) => console.log(`${word}: ${name}${detail ? ` — ${detail}` : ""}`);
const pass = (name, detail) => (counts.passed++, report("ok", name, detail));
const fail = (name, detail) => (counts.failed++, report("FAIL", name, detail));
const skip = (name, detail) => (counts.skipped++, report("skipped", name, detail));

/** Run one check; an exception (a timeout, a missing element) fails it with its message. */
async function check(name, body) {
    try {
        await body();
    } catch (e) {
        fail(name, String(e?.message ?? e).split("\n")[0]);
        await shot(`failed-${counts.failed}.png`).catch(() => {});
    }
}

/** The text of the first of `locators` to appear within `ms`, with its index. */
async function firstOf(locators, ms) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
        for (const [i, l] of locators.entries()) {
            if ((await l.count()) > 0 && (await l.first().isVisible())) {
                // innerText for HTML (what a reader sees), textContent for SVG (which has no innerText).
                const text = await l.first().evaluate((e) => ("innerText" in e ? e.innerText : (e.textContent ?? "")));
                return { index: i, text };
            }
        }
        await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`none of ${locators.length} expected elements appeared within ${ms} ms`);
}

const browser = await chromium.launch({
    executablePath: process.env.ZY_E2E_CHROMIUM ?? "/usr/bin/chromium",
    args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 820 } });
const shot = (name) => page.screenshot({ path: join(shots, name) });
const editorLine = (text) => page.locator(".editor-instance .view-line", { hasText: text });
/** Run a command from the palette (F1) by its title. */
async function runCommand(title) {
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget input").waitFor();
    await page.keyboard.type(title);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: title.replace(/^zy: /, "") }).first().waitFor();
    await page.keyboard.press("Enter");
}
const notification = (text) => page.locator(".notifications-toasts .notification-toast", { hasText: text });

try {
    await page.goto(url);
    await page.locator(".monaco-workbench .part.statusbar").waitFor({ timeout: 60_000 });

    // Open the fixture through Quick Open, as a user would.
    await page.keyboard.press("Control+P");
    await page.locator(".quick-input-widget input").waitFor();
    await page.keyboard.type("pow.jl");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "pow.jl" }).first().waitFor();
    await page.keyboard.press("Enter");
    await editorLine(/^function\spow\(/).waitFor({ timeout: 30_000 });

    let ready = false;
    let pictureShown = false;
    await check("the server starts (status bar)", async () => {
        const s = await firstOf(
            [page.locator(".statusbar-item", { hasText: "zy: ready" }), page.locator(".statusbar-item", { hasText: "zy: error" })],
            60_000,
        );
        if (s.index === 0) {
            ready = true;
            pass("the server starts (status bar)", s.text.trim());
        } else {
            fail("the server starts (status bar)", await page.locator(".statusbar-item", { hasText: "zy: error" }).first().getAttribute("aria-label"));
        }
    });
    if (!ready) {
        await shot("0-server-error.png");
        throw new Error("the server did not start");
    }

    await check("hover on pow shows its specialised signature", async () => {
        const token = editorLine(/^function\spow\(/).locator("span > span", { hasText: /^pow$/ });
        await token.hover();
        const hover = page.locator(".monaco-hover-content", { hasText: "pow(" });
        await hover.waitFor({ timeout: 15_000 });
        const text = await hover.innerText();
        const want = "pow(x::Float64, n::Int64) -> Union{Float64, Int64}";
        if (text.includes(want)) {
            pass("hover on pow shows its specialised signature", text.replace(/\s+/g, " ").trim());
        } else {
            fail("hover on pow shows its specialised signature", `expected ${want} in ${JSON.stringify(text)}`);
        }
        await page.waitForTimeout(600); // the hover fades in
        await shot("1-hover.png");
        await page.mouse.move(5, 400);
        await page.keyboard.press("Escape");
    });

    await check("inlay hints show the gradient types of the arguments", async () => {
        const hints = editorLine(/^function\spow\(/).locator("span", { hasText: /∇\sFloat64/ }).last();
        await hints.first().waitFor({ timeout: 10_000 });
        pass("inlay hints show the gradient types of the arguments", await hints.first().innerText());
    });

    await check("the ∇ compute gradient lens computes pow(2.0, 3)", async () => {
        await page.locator(".codelens-decoration a", { hasText: "∇ compute gradient" }).first().click();
        const r = await firstOf([notification("zy: pow(2.0, 3)"), notification("gradient failed")], 30_000);
        if (r.index === 1 && /not available/.test(r.text)) {
            await shot("2-gradient.png");
            skip("the ∇ compute gradient lens computes pow(2.0, 3)", `server lacks gradients (${r.text.trim()})`);
        } else if (r.index === 0 && r.text.includes("pow(2.0, 3) = 8.0, ∇ = (12.0, nothing)")) {
            // The result also shows in place, as an inlay hint after the signature.
            const inPlace = editorLine(/^function\spow\(/).locator("span", { hasText: /∇\s=\s\(12\.0/ }).last();
            await inPlace.waitFor({ timeout: 10_000 });
            await shot("2-gradient.png");
            pass("the ∇ compute gradient lens computes pow(2.0, 3)", `${r.text.trim()}; in place: ${(await inPlace.innerText()).trim()}`);
        } else {
            fail("the ∇ compute gradient lens computes pow(2.0, 3)", r.text.trim());
        }
    });

    await check("after compute gradient, inlay hints show each variable's adjoint", async () => {
        // pow(2.0, 3): x̄ = 3x² = 12.0 after the parameter; `r *= x` ran three times, with
        // adjoints x² = 4, x = 2 and 1, shown first → last.
        const xbar = editorLine(/^function\spow\(/).locator("span", { hasText: /x̄\s=\s12\.0/ }).last();
        await xbar.waitFor({ timeout: 15_000 });
        // The hint sits between `r` and `*= x`: the line reads `r r̄ = ×3: 4.0 → 1.0 *= x`.
        const rbar = editorLine(/\*=\sx/).locator("span", { hasText: /r̄\s=\s×3:\s4\.0\s→\s1\.0/ }).last();
        await rbar.waitFor({ timeout: 10_000 });
        await page.waitForTimeout(300);
        await shot("7-adjoint-hints.png");
        pass("after compute gradient, inlay hints show each variable's adjoint", `${(await xbar.innerText()).trim()}; ${(await rbar.innerText()).trim()}`);
    });

    await check("show SSA opens the typed IR beside the source", async () => {
        await page.locator(".codelens-decoration a", { hasText: "show SSA" }).first().click();
        await page.locator(".tab", { hasText: "pow.typed.zyir" }).waitFor({ timeout: 15_000 });
        const head = editorLine("pow(%1::Float64, %2::Int64) :: Float64");
        await head.waitFor({ timeout: 15_000 });
        pass("show SSA opens the typed IR beside the source", (await head.innerText()).trim());
        await shot("3-ssa.png");
    });

    await check("show control flow draws the primal and adjoint CFGs", async () => {
        await editorLine(/^function\spow\(/).click();
        await runCommand("zy: Show Control Flow");
        await page.locator(".tab", { hasText: "Control flow: pow" }).waitFor({ timeout: 20_000 });
        const frame = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
        const r = await firstOf([frame.locator(".card svg"), frame.locator(".message")], 20_000);
        // The picture as wide as the window: its group maximized, the side bar hidden.
        await page.locator(".tab", { hasText: "Control flow: pow" }).click();
        await runCommand("View: Toggle Maximize Editor Group");
        await runCommand("View: Toggle Primary Side Bar Visibility");
        await page.waitForTimeout(800);
        await shot("4-control-flow.png");
        await runCommand("View: Toggle Primary Side Bar Visibility");
        await runCommand("View: Toggle Maximize Editor Group");
        if (r.index === 1 && /unavailable/.test(r.text)) {
            skip("show control flow draws the primal and adjoint CFGs", `server lacks the dot stage (${r.text.trim()})`);
        } else if (r.index === 0) {
            const nodes = await frame.locator(".card svg g.node").count();
            const clusters = await frame.locator(".card svg g.cluster").count();
            if (nodes >= 4 && clusters >= 2) {
                pictureShown = true;
                pass("show control flow draws the primal and adjoint CFGs", `${nodes} blocks in ${clusters} clusters`);
            } else {
                fail("show control flow draws the primal and adjoint CFGs", `${nodes} blocks in ${clusters} clusters`);
            }
        } else {
            fail("show control flow draws the primal and adjoint CFGs", r.text.trim());
        }
    });

    await check("the SSA view follows edits of the source", async () => {
        // A line inserted above the function (the view's position must follow it), then `n -= 2`.
        await editorLine(/^function\spow\(/).click();
        await page.keyboard.press("Control+Home");
        await page.keyboard.type("# edited\n");
        await page.keyboard.press("Control+G");
        await page.keyboard.type("10");
        await page.keyboard.press("Enter");
        await page.keyboard.press("End");
        await page.keyboard.press("Backspace");
        await page.keyboard.type("2");
        await page.locator(".tab", { hasText: "pow.typed.zyir" }).click();
        const changed = editorLine("%4 - 2 :: Int64");
        await changed.waitFor({ timeout: 15_000 });
        pass("the SSA view follows edits of the source", (await changed.innerText()).trim());
    });

    await check("the control-flow picture follows the same edit", async () => {
        if (!pictureShown) {
            skip("the control-flow picture follows the same edit", "no picture to follow");
            return;
        }
        await page.locator(".tab", { hasText: "Control flow: pow" }).click();
        const frame = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
        const line = frame.locator(".card svg text", { hasText: /= %\d+ - 2 :: Int64/ });
        await line.waitFor({ timeout: 15_000 });
        pass("the control-flow picture follows the same edit", (await line.textContent()).trim());
    });

    await check("show adjoint IR opens the adjoint beside the source", async () => {
        // VS Code need not ask for lenses again after the edit: the extension shifts their
        // position arguments, so the view must still be pow's (its tab names pow, not a line).
        await page.locator(".codelens-decoration a", { hasText: "show adjoint IR" }).first().click();
        await page.locator(".tab", { hasText: "pow.adjoint.zyir" }).waitFor({ timeout: 15_000 });
        // The adjoint is the forward function pow⁺ then the pullback pow⁻.
        const r = await firstOf([editorLine("# adjoint unavailable"), editorLine(/^pow⁻\(/)], 15_000);
        await shot("5-adjoint-ir.png");
        if (r.index === 0) {
            skip("show adjoint IR opens the adjoint beside the source", `server lacks the adjoint stage (${r.text.trim()})`);
        } else if ((await editorLine(/^pow⁺\(/).count()) === 1) {
            pass("show adjoint IR opens the adjoint beside the source", `pow⁺ and ${r.text.trim()}`);
        } else {
            fail("show adjoint IR opens the adjoint beside the source", `no forward function pow⁺ before ${r.text.trim()}`);
        }
    });

    await check("zy: Show Cranelift IR opens the CLIF beside the source", async () => {
        await editorLine(/^function\spow\(/).click();
        await runCommand("zy: Show Cranelift IR");
        await page.locator(".tab", { hasText: "pow.clif.zyir" }).waitFor({ timeout: 15_000 });
        // Cranelift names the function by its index: `function u0:30(i64, f64, i64) -> f64 ...`.
        const r = await firstOf([editorLine("# clif unavailable"), editorLine(/^function\su0:\d+\(/)], 15_000);
        if (r.index === 0) {
            skip("zy: Show Cranelift IR opens the CLIF beside the source", `server lacks the clif stage (${r.text.trim()})`);
        } else {
            pass("zy: Show Cranelift IR opens the CLIF beside the source", r.text.trim());
        }
    });

    const name = "after zy: Restart Server, zy: Compute Gradient (palette) sees the edited source";
    await check(name, async () => {
        // The restarted server must get the edited document again: after `n -= 2` the loop runs
        // for n = 3, 1, so pow(2.0, 3) = x^2 = 4.0 and d/dx = 2x = 4.0.
        await runCommand("zy: Restart Server");
        await page.locator(".statusbar-item", { hasText: "zy: ready" }).waitFor({ timeout: 30_000 });
        await runCommand("Notifications: Clear All Notifications");
        await editorLine(/^\s*r\s\*=\sx/).click();
        await runCommand("zy: Compute Gradient");
        const r = await firstOf([notification("zy: pow(2.0, 3)"), notification("gradient failed")], 30_000);
        if (r.index === 1 && /not available/.test(r.text)) {
            skip(name, `server lacks gradients (${r.text.trim()})`);
        } else if (r.text.includes("zy: pow(2.0, 3) = 4.0, ∇ = (4.0, nothing)")) {
            pass(name, r.text.trim());
        } else {
            fail(name, r.text.trim());
        }
    });
    await check("a NaN gradient names its origin: in the result and as a diagnostic at the line", async () => {
        // nan.jl is fixtures/lints/nonfinite_gradient.jl: smooth_abs(x) = sqrt(x^2) at 0.0.
        await runCommand("Notifications: Clear All Notifications");
        await page.keyboard.press("Control+P");
        await page.locator(".quick-input-widget input").waitFor();
        await page.keyboard.type("nan.jl");
        await page.locator(".quick-input-list .monaco-list-row", { hasText: "nan.jl" }).first().waitFor();
        await page.keyboard.press("Enter");
        const fn = editorLine(/^smooth_abs\(x\)/);
        await fn.waitFor({ timeout: 30_000 });
        await page.locator(".codelens-decoration a", { hasText: "∇ compute gradient" }).first().click();
        const r = await firstOf([notification("zy: smooth_abs(0.0)"), notification("gradient failed")], 30_000);
        const origin = "the derivative of `sqrt(x^2)` at sqrt(0.0) is not finite";
        if (r.index !== 0 || !r.text.includes("∇ = (NaN,)") || !r.text.includes(origin)) {
            fail("a NaN gradient names its origin: in the result and as a diagnostic at the line", r.text.trim());
            return;
        }
        await runCommand("View: Focus Problems (Errors, Warnings, Infos)");
        const problem = page.locator(".markers-panel .monaco-list-row", { hasText: origin }).first();
        await problem.waitFor({ timeout: 15_000 });
        const row = (await problem.innerText()).replace(/\s+/g, " ").trim();
        // The squiggle is on the call `sqrt(x^2)` of smooth_abs's line (line 6 of nan.jl).
        if (!/nonfinite-gradient/.test(row) || !/\[Ln 6, Col 17\]/.test(row)) {
            fail("a NaN gradient names its origin: in the result and as a diagnostic at the line", row);
            return;
        }
        await fn.locator(".squiggly-warning, .squiggly-error").first().waitFor({ state: "attached", timeout: 10_000 }).catch(() => {});
        await page.waitForTimeout(300);
        await shot("8-nan-origin.png");
        pass("a NaN gradient names its origin: in the result and as a diagnostic at the line", `${r.text.trim()} | ${row}`);
    });

    await check("zy.lens.enable off hides the lenses of the open editor", async () => {
        // Settings open in the IR views' group, so pow.jl stays visible and must lose its lenses
        // without being edited or reopened.
        await page.locator(".tab", { hasText: "pow.typed.zyir" }).click();
        await runCommand("Preferences: Open User Settings");
        await page.locator(".settings-editor .search-container textarea").first().waitFor();
        await page.keyboard.type("zy.lens.enable");
        const box = page.locator(".settings-editor .setting-item-contents", { hasText: "code lenses" }).locator(".setting-value-checkbox");
        await box.waitFor({ timeout: 10_000 });
        const lenses = page.locator(".codelens-decoration");
        const before = await lenses.count();
        await box.click();
        await lenses.first().waitFor({ state: "detached", timeout: 10_000 });
        pass("zy.lens.enable off hides the lenses of the open editor", `${before} lens line(s) before, 0 after`);
        await box.click();
        await lenses.first().waitFor({ timeout: 10_000 });
    });

    await check("a wrong zy.server.path restarts into zy: error, with the reason in the tooltip", async () => {
        // As a user would: the Settings editor, searched for the setting, a new value typed in.
        await runCommand("Preferences: Open User Settings");
        await page.locator(".settings-editor .search-container textarea").first().waitFor();
        await page.keyboard.press("Control+A");
        await page.keyboard.type("zy.server.path");
        // The setting is machine-overridable: in code-server it lives in the Remote settings.
        await page.locator(".settings-editor .settings-tabs-widget .action-label", { hasText: "Remote" }).click();
        const input = page.locator(".settings-editor .setting-item-contents", { hasText: "zy-lsp" }).locator("input").first();
        await input.waitFor({ timeout: 10_000 });
        await input.fill("/nonexistent/zy-lsp");
        const item = page.locator(".statusbar-item", { hasText: "zy: error" });
        await item.waitFor({ timeout: 30_000 });
        await item.hover();
        const tip = page.locator(".workbench-hover, .monaco-hover", { hasText: "zy-lsp failed" }).first();
        await tip.waitFor({ timeout: 10_000 });
        const text = (await tip.innerText()).replace(/\s+/g, " ").trim();
        await shot("6-error.png");
        const want = 'zy-lsp failed: zy.server.path "/nonexistent/zy-lsp" is not an executable file';
        if (text.includes(want)) {
            pass("a wrong zy.server.path restarts into zy: error, with the reason in the tooltip", text);
        } else {
            fail("a wrong zy.server.path restarts into zy: error, with the reason in the tooltip", `expected ${want} in ${text}`);
        }
    });
} catch (e) {
    fail("the session", String(e?.message ?? e).split("\n")[0]);
    await shot("error.png").catch(() => {});
} finally {
    await browser.close();
}
console.log(`e2e: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
process.exit(counts.failed > 0 ? 1 : 0);
