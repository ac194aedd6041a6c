"""The report's one stylesheet, inlined in every page: the overview, the component graphs and the
timeline fit the column (scaled down, never cropped); the full graph scrolls sideways inside its
own box; tables wrap; printable (folded parts open, figures fit the paper); no web fonts."""

STYLE = """
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1d232b}
body{margin:0;background:#fff;line-height:1.45}
main{max-width:1200px;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.2rem;border-bottom:1px solid #d5dbe3;padding-bottom:.2rem}
section{margin:1.2rem 0}
dl{display:flex;flex-wrap:wrap;gap:.6rem;margin:0}
dl div{border:1px solid #d5dbe3;border-radius:6px;padding:.4rem .7rem;min-width:10rem}
dt{font-size:.8rem;color:#4a5563}dd{margin:0;font-weight:600}
.scroll{overflow-x:auto;margin:0}
figure svg{display:block;max-width:none;height:auto}
figure.fit{margin:.4rem 0}figure.fit svg{max-width:100%}
.gate{border-radius:6px;padding:.1rem .8rem;margin:.4rem 0 .8rem}
.gate.passed{background:#e4f4e4;border:1px solid #6aa96a}.gate.blocked{background:#fbe3e3;border:1px solid #c0392b}
details{margin:.15rem 0}summary{cursor:pointer}
table{border-collapse:collapse;font-size:.85rem}
caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border-bottom:1px solid #e3e7ec;padding:.25rem .5rem;text-align:left;vertical-align:top}
td:nth-child(n+2):nth-child(-n+6){text-align:right}
#resources td{text-align:left;overflow-wrap:anywhere}table.cost td:last-child{overflow-wrap:anywhere}
tr.unpriced td{color:#8a4b00}
.gantt .label{font-size:10px;text-anchor:end;fill:#1d232b}
.gantt .axis{font-size:10px;text-anchor:middle;fill:#4a5563}
.gantt .tick{stroke:#e3e7ec}
.gantt .span rect{fill:#b9c9dc}
.gantt .critical-path{fill:none;stroke:#c0392b;stroke-width:3;stroke-linejoin:round}
.gantt .wait{font-size:10px;font-weight:600;text-anchor:middle;fill:#8e1b10}
.gantt .took{font-size:9px;fill:#4a5563}
.gantt .bar rect{fill:#6b8fb8}
.gantt .bar.critical rect{fill:#c0392b}
.gantt .bar.create rect{stroke:#2e7d32;stroke-width:2}
.gantt .bar.update rect{stroke:#b8860b;stroke-width:2}
.gantt .bar.replace rect{stroke:#8e0000;stroke-width:2}
.k-critical{color:#c0392b;font-weight:600}
.k-create{background:#d9f2d9}.k-update{background:#fff1c2}.k-replace{background:#f9d3d3}
@media (max-width:700px){main{padding:.5rem}h1{font-size:1.2rem}}
@media print{.scroll{overflow:visible}figure svg{max-width:100%}
details::details-content{content-visibility:visible;display:block}details>*{display:block}
section{break-inside:avoid-page}}
"""
