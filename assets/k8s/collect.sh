#!/usr/bin/env bash
# Waits for the fleet Job to finish, cuts each pod's report out of its log
# and merges them: a table on stdout, the merged JSON beside the reports.
#
#   assets/k8s/collect.sh [JOB] [OUTPUT_DIR]
#
# JOB defaults to gcs-speed-tui-fleet, OUTPUT_DIR to ./fleet-reports, which
# gets pods/POD.log and pods/POD.json for each pod and fleet.json, the merge.
# NAMESPACE picks a namespace (default: kubectl's current one), TIMEOUT_S
# how long to wait (default 1800), GCS_SPEED_TUI the binary that merges.
set -euo pipefail
job=${1:-gcs-speed-tui-fleet}
out=${2:-fleet-reports}
tool=${GCS_SPEED_TUI:-gcs-speed-tui}
deadline=$((SECONDS + ${TIMEOUT_S:-1800}))
begin='----- BEGIN GCS-SPEED-TUI REPORT -----'
end='----- END GCS-SPEED-TUI REPORT -----'

k() {
  if [[ -n "${NAMESPACE:-}" ]]; then kubectl -n "$NAMESPACE" "$@"; else kubectl "$@"; fi
}

completions=$(k get job "$job" -o jsonpath='{.spec.completions}')
echo "waiting for the $completions pods of job/$job to finish" >&2
while :; do
  # Each count on its own: an empty one (none yet) is 0.
  succeeded=$(k get job "$job" -o jsonpath='{.status.succeeded}')
  failed=$(k get job "$job" -o jsonpath='{.status.failed}')
  gave_up=$(k get job "$job" -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}')
  succeeded=${succeeded:-0} failed=${failed:-0}
  if ((succeeded + failed >= completions)) || [[ "$gave_up" == "True" ]]; then break; fi
  if ((SECONDS >= deadline)); then
    echo "error: job/$job still running after ${TIMEOUT_S:-1800} s ($succeeded succeeded, $failed failed): raise TIMEOUT_S, or see kubectl describe job/$job" >&2
    exit 1
  fi
  sleep 5
done
echo "job/$job: $succeeded succeeded, $failed failed" >&2

mkdir -p "$out/pods"
reports=()
for pod in $(k get pods -l "job-name=$job" -o jsonpath='{.items[*].metadata.name}'); do
  k logs "$pod" > "$out/pods/$pod.log"
  # The lines between the markers, without them.
  awk -v b="$begin" -v e="$end" '$0 == e {inside = 0} inside {print} $0 == b {inside = 1}' "$out/pods/$pod.log" > "$out/pods/$pod.json"
  if [[ -s "$out/pods/$pod.json" ]]; then
    reports+=("$out/pods/$pod.json")
  else
    rm -f "$out/pods/$pod.json"
    echo "warning: $pod printed no report (its log is $out/pods/$pod.log)" >&2
  fi
done
if ((${#reports[@]} == 0)); then
  echo "error: no pod of job/$job printed a report: read the logs in $out/pods" >&2
  exit 1
fi
"$tool" merge "${reports[@]}" --format json --output "$out/fleet.json"
"$tool" merge "$out/fleet.json"
echo "merged ${#reports[@]} reports into $out/fleet.json; clean up with: kubectl delete job $job${NAMESPACE:+ -n $NAMESPACE}" >&2
