"""``/docs``: Swagger UI over ``/openapi.json``, served from the assets the ``swagger-ui-py``
package ships (no CDN: the service may run offline). "Try it out" calls this server."""

from __future__ import annotations

from pathlib import Path

import swagger_ui

ASSETS = Path(swagger_ui.__file__).with_name("static")
FILES = frozenset({"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js",
                   "favicon-32x32.png", "favicon-16x16.png"})

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>graphmem API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
</head><body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script>
window.onload = function () {
  window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout",
    persistAuthorization: true, validatorUrl: null});
};
</script></body></html>"""
