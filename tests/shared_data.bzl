"""Tests that read the real files in ../shared/data.

A user's fresh clone has no ../shared, so `bazel test //...` must pass
without it. Every test that needs those files (the released vocabularies,
GLUE, SQuAD, the shared corpora, the CI regression experiment) is declared
with one of these macros, which tag it SHARED_DATA_TAG. `.bazelrc` filters
that tag out of plain `bazel test` and `--config=shared_data` puts it back
(it also passes BERTLAB_SHARED_DATA through). Such a test fails loudly when
it runs and the data is missing: //tasks:shared_data_for_test says where it
looked. tools/test_fresh_clone.sh checks that no other test reads the
data, by running the plain selection with ../shared made invisible.
"""

# The one tag; .bazelrc names it too (a .bazelrc cannot load this file).
SHARED_DATA_TAG = "requires-shared-data"

def _with_tag(tags):
    return (tags or []) + [SHARED_DATA_TAG]

def shared_data_cc_test(name, deps = [], tags = [], **kwargs):
    """A cc_test that finds the data through //tasks:shared_data_for_test."""
    native.cc_test(
        name = name,
        deps = deps + ["//tasks:shared_data_for_test"],
        tags = _with_tag(tags),
        **kwargs
    )

def shared_data_sh_test(name, tags = [], **kwargs):
    """An sh_test that finds the data itself ($BERTLAB_SHARED_DATA, else
    ../shared/data beside the source tree), failing when it is missing."""
    native.sh_test(
        name = name,
        tags = _with_tag(tags),
        **kwargs
    )
