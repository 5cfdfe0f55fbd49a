import { test } from "node:test";
import assert from "node:assert/strict";
import { controlFlowHtml, escapeHtml, renderDot, withMeasurableFonts } from "../render";

// The shape of the server's `dot` stage: the primal CFG and the adjoint CFG as two clusters.
const POW_DOT = `digraph pow {
  subgraph cluster_primal { label="primal";
    p1 [shape=box label="1: r = 1"]; p2 [shape=box label="2: while n > 0"]; p3 [shape=box label="3: r *= x; n -= 1"]; p4 [shape=box label="4: return r"];
    p1 -> p2; p2 -> p3; p3 -> p2; p2 -> p4;
  }
  subgraph cluster_adjoint { label="adjoint";
    a4 [shape=box label="4: dr = 1"]; a2 [shape=box label="2: pop branch"]; a3 [shape=box label="3: dx += dr * r"]; a1 [shape=box label="1: return dx"];
    a4 -> a2; a2 -> a3 [label="took body"]; a3 -> a2; a2 -> a1 [label="entry"];
  }
  p3 -> a3 [style=dashed label="stack"];
}`;

test("the pow picture renders to SVG with both clusters, every block and the branch labels", async () => {
    const r = await renderDot(POW_DOT);
    assert.equal(r.ok, true);
    const svg = r.ok ? r.svg : "";
    assert.ok(svg.startsWith("<svg"), svg.slice(0, 60));
    for (const text of ["primal", "adjoint", "1: r = 1", "3: dx += dr * r", "took body", "stack", "4: return r"]) {
        assert.ok(svg.includes(`>${escapeHtml(text)}</text>`), `missing ${text}`);
    }
    // One <g class="node"> per block, one cluster per CFG.
    assert.equal(svg.match(/class="node"/g)?.length, 8);
    assert.equal(svg.match(/class="cluster"/g)?.length, 2);
});

test("a Graphviz syntax error becomes a message, not an exception", async () => {
    const r = await renderDot("digraph { a -> }");
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.message, /syntax error in line 1/);
});

test("the webview HTML has a strict policy, the picture, and escapes messages", () => {
    const html = controlFlowHtml("Control flow: pow", { svg: "<svg><g/></svg>" });
    assert.match(html, /default-src 'none'; style-src 'unsafe-inline'; img-src data:;/);
    assert.ok(html.includes('<div class="card"><svg><g/></svg></div>'));
    assert.ok(html.includes('<input type="checkbox" id="actual"><label for="actual">actual size</label>'));
    assert.ok(!html.includes("<script"));
    const err = controlFlowHtml("Control flow: <f>", { message: "no `# zy: at` call for f & g" });
    assert.ok(err.includes("<h1>Control flow: &#60;f&#62;</h1>"));
    assert.ok(err.includes('<p class="message">no `# zy: at` call for f &#38; g</p>'));
});

test("blocks default to Courier (whose metrics Graphviz has), edges to Helvetica; the graph's own fonts win", async () => {
    const r = await renderDot('digraph { a [shape=box label="%1 = x"]; b [fontname="Times"]; a -> b [label="e"] }');
    assert.deepEqual(r.ok ? r.svg.match(/font-family="[^"]*"/g) : r.message, [
        'font-family="Courier,monospace"',
        'font-family="Times"',
        'font-family="Helvetica,sans-Serif"',
    ]);
});

test("the generic monospace font is laid out as Courier, so text fits", async () => {
    assert.equal(
        withMeasurableFonts('node [shape=box, fontname="monospace"];\n  edge [fontname = monospace, fontsize=9];'),
        'node [shape=box, fontname="Courier"];\n  edge [fontname="Courier", fontsize=9];',
    );
    const label = "%6 = stack() :: Stack{Tuple{Float64}}";
    const r = await renderDot(`digraph { node [shape=box, fontname="monospace"]; a [label="${label}"] }`);
    const svg = r.ok ? r.svg : r.message;
    assert.ok(svg.includes('font-family="Courier,monospace"'), svg);
    // Courier is 0.6 em per character: 37 characters at the default 10 pt are 222 pt, and the
    // box (polygon points "x,y x,y ...") must be at least that wide.
    const xs = (svg.match(/<polygon fill="none" stroke="black" points="([^"]+)"/)?.[1] ?? "")
        .split(" ")
        .map((p) => Number(p.split(",")[0]));
    assert.ok(Math.max(...xs) - Math.min(...xs) >= 37 * 10 * 0.6, `box width ${Math.max(...xs) - Math.min(...xs)}`);
});
