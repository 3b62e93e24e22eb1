#!/bin/bash
# report.html as a browser sees it: //reports:render writes the page from
# fixture records (write_html_fixture), headless Chromium (Debian's
# `chromium`, installed by tools/setup.sh) parses it, and the checks run on
# the DOM Chromium built, not on our bytes: the results table's rows and
# columns, the three kinds of plot (sweep, curves, spread) with their dots and
# lines, every SVG element in the SVG namespace, no element the parser did
# not know, no bogus comment, no element moved out of a table.
#
# The page itself has no script; the test appends one (the probe) to a copy,
# which writes what it found into the page as JSON, and --dump-dom prints it.
# Chromium reads only file:// here and needs no network.
set -euo pipefail
render=$(realpath "$1")
write_fixture=$(realpath "$2")
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/report_html_chromium_test.XXXXXX")

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

chromium=$(command -v chromium || true)
[ -n "$chromium" ] ||
  fail "chromium is not installed (PATH=$PATH): run tools/setup.sh as root; it installs Debian's chromium package, which this test needs"

eval "$("$write_fixture" "$work/runs")"
"$render" "$work/runs" --output_dir="$work/report" --date=2024-05-01 \
  >/dev/null 2>"$work/render.err" || fail "render failed: $(cat "$work/render.err")"
html="$work/report/report.html"
[ -s "$html" ] || fail "render wrote no report.html"
grep -q "wrote $html" "$work/render.err" || fail "render did not report report.html"

# dump_dom FILE OUT: the DOM Chromium built from FILE, serialized, in OUT.
dump_dom() {
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  if ! HOME="$profile" XDG_CONFIG_HOME="$profile" XDG_CACHE_HOME="$profile" \
    timeout 25 "$chromium" --headless --no-sandbox --disable-gpu \
    --disable-dev-shm-usage --user-data-dir="$profile" --no-first-run \
    --no-default-browser-check --disable-extensions --disable-sync \
    --disable-background-networking --disable-component-update \
    --dump-dom "file://$1" >"$2" 2>"$work/chromium.err"; then
    fail "chromium --dump-dom $1 failed or timed out: $(tail -20 "$work/chromium.err")"
  fi
  [ -s "$2" ] || fail "chromium printed no DOM for $1: $(tail -20 "$work/chromium.err")"
}

# The page as it is: parsed without a bogus comment (an XML declaration or
# processing instruction inside HTML becomes one).
dump_dom "$html" "$work/page.dom"
grep -q '<table class="results" id="table5">' "$work/page.dom" ||
  fail "no results table in the DOM: $(head -c 2000 "$work/page.dom")"
if grep -q '<!--' "$work/page.dom"; then
  fail "the DOM has a comment the page does not: $(grep -o '<!--.\{0,60\}' "$work/page.dom" | head -3)"
fi

# The probe: the same page with a script before </body>.
[ "$(tail -n 2 "$html")" = $'</body>\n</html>' ] ||
  fail "report.html does not end with </body></html>"
probe="$work/report/probe.html"
{
  head -n -2 "$html"
  cat <<'PROBE'
<script>
(function () {
  const svgNs = "http://www.w3.org/2000/svg";
  const all = (selector, root) =>
    Array.from((root || document).querySelectorAll(selector));
  const out = {};
  out.mode = document.compatMode;
  const table = document.querySelector("table.results#table5");
  out.results_tables = all("table.results").length;
  if (table) {
    out.head_rows = table.tHead ? table.tHead.rows.length : -1;
    out.head_cells = table.tHead ? table.tHead.rows[0].cells.length : -1;
    const body = table.tBodies[0];
    out.body_rows = body.rows.length;
    out.variant_rows = all("tr.variant", body).length;
    out.trivial_rows = all("tr.trivial", body).length;
    const widths = Array.from(body.rows).map((row) => row.cells.length);
    out.min_row_cells = Math.min.apply(null, widths);
    out.max_row_cells = Math.max.apply(null, widths);
    out.na_cells = all("td.na", body).length;
    out.table_children = Array.from(table.children)
        .map((e) => e.tagName).join(",");
    const extra = body.querySelector("tr[data-variant=rtl_no_nsp] th");
    // The fixture's description, escaped in the bytes, is text again.
    out.extra_name_is_text = extra && extra.textContent.startsWith(
        "RTL & No NSP <not in the paper> \"right-to-left\"") ? 1 : 0;
  }
  out.stray_rows = all("tr").filter((row) => !row.closest("table")).length;
  out.claim_rows = all("section.verdicts table.claims tbody tr").length;
  const count = (selector) => all(selector).length;
  out.sweep = count("svg.sweep#table5-sweep");
  out.sweep_circles = count("svg.sweep circle");
  out.sweep_lines = count("svg.sweep polyline");
  out.curves = count("svg.curves#table5-curves");
  out.curve_paths = count("svg.curves path");
  out.curve_circles = count("svg.curves circle");
  out.curve_length = all("svg.curves path")
      .every((path) => path.getTotalLength() > 0) ? 1 : 0;
  out.spread = count("svg.spread");
  out.spread_circles = count("svg.spread circle");
  out.spread_means = count("svg.spread line.mean");
  out.svg_drawn = all("svg").every((svg) => {
    const box = svg.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  }) ? 1 : 0;
  out.svgs = count("svg");
  out.circles = count("circle");
  out.paths = count("path");
  out.outside_svg_namespace =
      all("svg, svg *").filter((e) => e.namespaceURI !== svgNs).length;
  out.unknown_elements =
      all("*").filter((e) => e instanceof HTMLUnknownElement).length;
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
PROBE
  printf '</body>\n</html>\n'
} >"$probe"
dump_dom "$probe" "$work/probe.dom"
json=$(sed -n 's|.*<pre id="probe">\(.*\)</pre>.*|\1|p' "$work/probe.dom")
[ -n "$json" ] || fail "the probe wrote nothing (scripts off?): $(tail -c 2000 "$work/probe.dom")"
echo "probe: $json"

# value KEY: the probe's value of KEY (a number, or a string without its
# quotes).
value() {
  local found
  found=$(grep -o "\"$1\":\\(\"[^\"]*\"\\|[-0-9.]*\\)" <<<"$json" | head -n 1) ||
    fail "the probe has no $1: $json"
  found=${found#*:}
  found=${found#\"}
  echo "${found%\"}"
}
expect() {
  local actual
  actual=$(value "$1")
  [ "$actual" = "$2" ] || fail "$1: expected $2, got $actual ($json)"
}
expect_positive() {
  local actual
  actual=$(value "$1")
  [ "$actual" -gt 0 ] 2>/dev/null || fail "$1: expected > 0, got $actual ($json)"
}
# in_source PATTERN: how many times the page's bytes hold PATTERN.
in_source() { grep -o "$1" "$html" | wc -l; }

expect mode CSS1Compat
expect results_tables 1
expect head_rows 1
expect head_cells $((columns + 1))
expect variant_rows "$rows"
expect trivial_rows 1
expect body_rows $((rows + 1))
expect min_row_cells $((columns + 1))
expect max_row_cells $((columns + 1))
expect_positive na_cells
expect table_children THEAD,TBODY
expect stray_rows 0
expect extra_name_is_text 1
expect_positive claim_rows
expect sweep 1
expect_positive sweep_circles
expect_positive sweep_lines
expect curves 1
expect curve_paths "$curves"
expect curve_circles $((curves * points_per_curve))
expect curve_length 1
expect spread "$spread_panels"
expect spread_circles $((spread_panels * curves * restarts))
expect spread_means $((spread_panels * curves))
expect svg_drawn 1
expect outside_svg_namespace 0
expect unknown_elements 0
# Nothing dropped or invented by the parser.
expect svgs "$(in_source '<svg ')"
expect circles "$(in_source '<circle ')"
expect paths "$(in_source '<path ')"
echo PASS
