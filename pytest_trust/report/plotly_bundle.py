"""plotly.js for the HTML pages, small enough to inline in every CI run's artifact.

The pages draw only bars, boxes and heatmaps, so they carry plotly.js's cartesian bundle (npm's
``plotly.js-cartesian-dist-min``, pinned below and shipped as package data with its licence), not the full
4.8 MB one the plotly wheel inlines: gzip'd and base64'd into the page it is 0.66 MB, unpacked by the
browser's ``DecompressionStream`` when the page opens, then each figure is drawn from its JSON (``figure``
in ``pytest_trust.report.html_parts``) with the page's one copy of the plotly_white template. The page still opens
from a file, offline. ``scripts/update_plotly_bundle.sh`` replaces the bundle with another pinned version.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from functools import lru_cache
from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
BUNDLE = ASSETS / "plotly-cartesian.min.js"
VERSION = "4.1.1"  # the plotly.js version the installed plotly (7.x) writes figures for
SHA256 = "79542150855a52c567260e3137095dbe2b744e6d702a5cabe67da246942fba7a"  # of plotly-cartesian.min.js 4.1.1

# unpack(id): the text of a gzip'd, base64'd <script type="application/gzip" id=...> block, as a Promise
LOADER = """
function unpack(id){var s=document.getElementById(id);if(!s){return Promise.resolve(null);}
 var b=atob(s.textContent),u=new Uint8Array(b.length);for(var i=0;i<b.length;i++){u[i]=b.charCodeAt(i);}
 return new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'))).text();}
var plotlyReady=unpack('plotly-js').then(function(code){var s=document.createElement('script');s.text=code;
 document.head.appendChild(s);return window.Plotly;});
function drawFigures(root){plotlyReady.then(function(Plotly){
 (root||document).querySelectorAll('div.plot:not(.js-plotly-plot)').forEach(function(div){
  var box=div.querySelector('script');var spec=JSON.parse(box.textContent);box.remove();
  spec.layout.template=PLOTLY_TEMPLATE;
  Plotly.newPlot(div,spec.data,spec.layout,spec.config);});});}
document.addEventListener('DOMContentLoaded',function(){drawFigures();});
"""


def packed(element_id: str, data: bytes) -> str:
    """``data`` gzip'd and base64'd in a script block the page's ``unpack(element_id)`` reads."""
    text = base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode()
    return f'<script type="application/gzip" id="{element_id}">{text}</script>'


@lru_cache(maxsize=1)
def head() -> str:
    """For a page's <head>: plotly.js packed, the template, and the loader that draws each ``div.plot``."""
    code = BUNDLE.read_bytes()
    if hashlib.sha256(code).hexdigest() != SHA256:
        raise RuntimeError(f"{BUNDLE} is not plotly.js-cartesian-dist-min {VERSION}: reinstall pytest-trust")
    import plotly.io as pio

    template = script_json(pio.templates["plotly_white"].to_plotly_json())
    return packed("plotly-js", code) + f"<script>var PLOTLY_TEMPLATE={template};{LOADER}</script>"


def script_json(value: object) -> str:
    """``value`` as compact JSON that is safe inside a <script> element."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
