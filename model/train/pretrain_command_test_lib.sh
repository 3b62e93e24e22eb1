# Sourced by the tests of the //experiments:pretrain binary (BUILD's
# PRETRAIN_COMMAND_TEST_ARGS): after `pretrain_command_test_setup NAME "$@"`
# there are $work (a fresh directory), $pretrain and $config, shards of the
# toy corpus in $work/shards (the data settings of
# testdata/kill_resume.textproto), fail MESSAGE, and run OUTPUT_DIR [flags].
pretrain_command_test_setup() {
  local name=$1
  create_pretraining_data=$2 pretrain=$3 config=$4
  local corpus=$5 vocab=$6
  work=${TEST_TMPDIR:-$(mktemp -d)}/$name
  rm -rf "$work"
  mkdir -p "$work"
  "$create_pretraining_data" --input="$corpus" --vocab="$vocab" \
    --output_dir="$work/shards" --max_seq_length=32 --max_predictions_per_seq=5 \
    --dupe_factor=3 --seed=7 --progress_seconds=0 2>"$work/create.log" ||
    { cat "$work/create.log" >&2; fail "create_pretraining_data failed"; }
}

fail() { echo "FAIL: $*" >&2; exit 1; }

run() {  # run OUTPUT_DIR [flags...]
  local out=$1
  shift
  "$pretrain" --config="$config" --shards="$work/shards" --output_dir="$out" \
    --threads=2 --progress=off "$@"
}

# comparable_metrics METRICS_JSONL: every metric but time and how the run
# executed (threads, ranks, device), for comparing runs that must give the
# same bits.
comparable_metrics() {
  sed -E -e 's/"(tokens_per_second|real_tokens_per_second|step_seconds|train_seconds|elapsed_seconds)":[-+0-9.eE]+,?//g' \
    -e 's/"threads":[0-9]+,//' -e 's/"ranks":[0-9]+,//' \
    -e 's/"device":"cpu, [0-9]+ threads",//' "$1"
}
