#!/usr/bin/env bash
# Waits for the fleet Job to finish, cuts each pod's report out of its log
# and merges them: a table on stdout, the merged JSON in the output folder.
#
#   assets/k8s/collect.sh [JOB] [OUTPUT_DIR]
#
# JOB defaults to gcs-speed-tui-fleet, OUTPUT_DIR to ./fleet-reports.
# NAMESPACE picks a namespace (default: kubectl's current one), TIMEOUT_S
# how long to wait (default 1800), GCS_SPEED_TUI the binary that merges.
set -euo pipefail
job=${1:-gcs-speed-tui-fleet}
out=${2:-fleet-reports}
tool=${GCS_SPEED_TUI:-gcs-speed-tui}
deadline=$((SECONDS + ${TIMEOUT_S:-1800}))
ns=()
if [[ -n "${NAMESPACE:-}" ]]; then ns=(-n "$NAMESPACE"); fi
begin='----- BEGIN GCS-SPEED-TUI REPORT -----'
end='----- END GCS-SPEED-TUI REPORT -----'

completions=$(kubectl "${ns[@]}" get job "$job" -o jsonpath='{.spec.completions}')
echo "waiting for the $completions pods of job/$job to finish" >&2
while :; do
  read -r succeeded failed < <(kubectl "${ns[@]}" get job "$job" -o jsonpath='{.status.succeeded} {.status.failed}' | awk '{print ($1 == "" ? 0 : $1), ($2 == "" ? 0 : $2)}')
  if ((succeeded + failed >= completions)); then break; fi
  if ((SECONDS >= deadline)); then
    echo "error: job/$job still running after ${TIMEOUT_S:-1800} s ($succeeded succeeded, $failed failed): raise TIMEOUT_S" >&2
    exit 1
  fi
  sleep 5
done
echo "job/$job: $succeeded succeeded, $failed failed" >&2

mkdir -p "$out"
reports=()
for pod in $(kubectl "${ns[@]}" get pods -l "job-name=$job" -o jsonpath='{.items[*].metadata.name}'); do
  kubectl "${ns[@]}" logs "$pod" > "$out/$pod.log"
  # The lines between the markers, without them.
  awk -v b="$begin" -v e="$end" '$0 == e {inside = 0} inside {print} $0 == b {inside = 1}' "$out/$pod.log" > "$out/$pod.json"
  if [[ -s "$out/$pod.json" ]]; then
    reports+=("$out/$pod.json")
  else
    rm -f "$out/$pod.json"
    echo "warning: $pod printed no report (its log is $out/$pod.log)" >&2
  fi
done
if ((${#reports[@]} == 0)); then
  echo "error: no pod of job/$job printed a report: read the logs in $out" >&2
  exit 1
fi
"$tool" merge "${reports[@]}" --format json --output "$out/fleet.json"
"$tool" merge "$out/fleet.json"
echo "merged ${#reports[@]} reports into $out/fleet.json; clean up with: kubectl ${ns[*]} delete job $job" >&2
