/**
 * The control-flow picture: Graphviz text (the `dot` stage of `zy/viewIr`) laid out to SVG with
 * the bundled WebAssembly Graphviz, and the HTML of the webview that shows it. No VS Code API.
 */
import { instance, type Viz } from "@viz-js/viz";

let viz: Promise<Viz> | undefined;

/**
 * Default fonts: WebAssembly Graphviz sizes text with built-in metrics, which exist for Courier
 * (and Times, Helvetica) but not for "monospace", so IR text set in Courier fits its boxes.
 * Attributes in the graph itself take precedence.
 */
const FONTS = {
    graphAttributes: { fontname: "Helvetica" },
    nodeAttributes: { fontname: "Courier", fontsize: 10 },
    edgeAttributes: { fontname: "Helvetica", fontsize: 9 },
};

/**
 * `dot` with the generic `monospace` font named `Courier`: Graphviz would size text in a font it
 * has no metrics for as if proportional, and IR text would overflow its boxes. The SVG then asks
 * for `Courier,monospace`, which browsers draw with a Courier-width monospace font.
 */
export function withMeasurableFonts(dot: string): string {
    return dot.replace(/\bfontname\s*=\s*"?monospace"?/g, 'fontname="Courier"');
}

/** SVG for `dot`, or the Graphviz error. The WebAssembly module is compiled once, on first use. */
export async function renderDot(dot: string): Promise<{ ok: true; svg: string } | { ok: false; message: string }> {
    viz ??= instance();
    const result = (await viz).render(withMeasurableFonts(dot), { format: "svg", engine: "dot", ...FONTS });
    if (result.status === "failure") {
        const message = result.errors.map((e) => e.message.trim()).join("\n") || "Graphviz failed";
        return { ok: false, message };
    }
    const start = result.output.indexOf("<svg");
    return { ok: true, svg: start >= 0 ? result.output.slice(start) : result.output };
}

/** What the webview shows: a picture, or a message (why there is none). */
export type Picture = { svg: string } | { message: string };

/**
 * The webview's HTML: no scripts, a content security policy allowing only inline styles, the
 * picture on a white card (Graphviz draws black on white) so it reads in dark themes too.
 */
export function controlFlowHtml(title: string, picture: Picture): string {
    // The picture fits the panel's width; the checkbox (pure CSS, no script) shows it at its size.
    const body =
        "svg" in picture
            ? `<input type="checkbox" id="actual"><label for="actual">actual size</label>\n<div class="card">${picture.svg}</div>`
            : `<p class="message">${escapeHtml(picture.message)}</p>`;
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;">
<title>${escapeHtml(title)}</title>
<style>
body { padding: 8px; font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
h1 { font-size: 1.1em; font-weight: normal; margin: 0 0 8px 0; }
.card { background: #fff; display: inline-block; margin-top: 8px; padding: 8px; border-radius: 4px; max-width: calc(100% - 16px); }
.card svg { display: block; max-width: 100%; height: auto; }
label { margin-left: 4px; }
#actual:checked ~ .card, #actual:checked ~ .card svg { max-width: none; }
.message { white-space: pre-wrap; color: var(--vscode-errorForeground); }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

/** `s` with the five HTML-special characters escaped. */
export function escapeHtml(s: string): string {
    return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
