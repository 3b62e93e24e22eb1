#!/bin/bash
# Dumps the World English Bible (SWORD module engWEB2015eb, Debian package
# sword-text-web) with diatheke in its raw markup, for
# //tasks/corpus:default_corpus (see diatheke_reader.h for why this format).
#
#   default_corpus_dump.sh OUT_DUMP OUT_PROVENANCE
#
# OUT_PROVENANCE records what the dump depends on: the module's version,
# the package versions and the exact command. Needs no network; the
# packages come from tools/setup.sh.
set -euo pipefail
out_dump=$1
out_provenance=$2
module=engWEB2015eb
diatheke=/usr/bin/diatheke
conf=/usr/share/sword/mods.d/${module}.conf

fail() {
  echo "default_corpus_dump.sh: $*" >&2
  echo "default_corpus_dump.sh: install the packages with tools/setup.sh" \
       "(apt-get install diatheke sword-text-web)" >&2
  exit 1
}

[ -x "$diatheke" ] || fail "$diatheke not found"
[ -r "$conf" ] || fail "$conf not found (the SWORD module $module)"

# -f internal: the module's OSIS markup as stored; -o fs: footnotes and
# cross-references stay as empty <note/> elements, which mark word gaps.
command=("$diatheke" -b "$module" -f internal -o fs -k Gen-Rev)
"${command[@]}" > "$out_dump"
verses=$(grep -c ': ' "$out_dump" || true)
last=$(tail -n 1 "$out_dump")
if [ "$verses" -lt 30000 ] || [ "$last" != "($module)" ]; then
  fail "diatheke gave $verses verse lines ending with '$last';" \
       "expected over 30000 and '($module)'"
fi

package_version() {
  dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown
}
{
  echo "module: $module"
  grep -E '^(Version|SwordVersionDate|Versification)=' "$conf"
  echo "sword-text-web: $(package_version sword-text-web)"
  echo "diatheke: $(package_version diatheke)"
  echo "command: ${command[*]}"
  echo "verse lines: $verses"
} > "$out_provenance"
