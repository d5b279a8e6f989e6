#!/usr/bin/env bash
# Fills the viewer template with a profile JSON, the way a producer must:
#   viewer/make-example.sh [data.json] [out.html]    (defaults: example-data.json, /tmp/candor-example.html)
# The JSON is re-serialized with every "<" (and U+2028/U+2029) escaped, so that names such as
# "</script>" or "<!--" cannot end or confuse the <script> element it is embedded in. The marker is
# replaced as a literal string (exactly once), never with a regex replacement.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${1:-$here/example-data.json}
out=${2:-/tmp/candor-example.html}
python3 - "$here/flamegraph.html" "$data" "$out" <<'PY'
import json, sys
template_path, data_path, out_path = sys.argv[1:4]
marker = "/*CANDOR:DATA*/null"
with open(template_path, encoding="utf-8") as f:
    template = f.read()
if template.count(marker) != 1:
    sys.exit(f"make-example: expected the marker exactly once in {template_path}")
with open(data_path, encoding="utf-8") as f:
    data = json.load(f)
payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
payload = payload.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
with open(out_path, "w", encoding="utf-8") as f:
    f.write(template.replace(marker, payload))
print(out_path)
PY
