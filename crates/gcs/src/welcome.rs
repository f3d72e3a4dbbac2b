//! What the app's live pane says of a GCS form before its first run: it
//! follows the form's workload, range and bucket.

use crate::config::Options;
use schedule_flags::ScheduleArgs;
use target_api::Welcome;

/// GCS's welcome, which follows the form's workload, range and bucket.
pub fn welcome(options: &Options, schedule: &ScheduleArgs) -> Welcome {
    let workload = options.workload.trim();
    let (w1r3, reads) = (workload == "w1r3", matches!(workload, "w1r3" | "download" | "ranges"));
    // The form remembers its fields: say a remembered range, which changes what is read.
    let range = options.range_size.trim();
    let reads_what = if workload == "ranges" {
        let each = if matches!(range, "" | "0") { "a Read range size (under advanced)" } else { range };
        let how = match (schedule.transports.contains("grpc-read-object"), options.grpc_ranges.trim()) {
            (true, _) => "one gRPC ReadObject each against all on one gRPC stream",
            (false, "read-object") => "JSON one GET each, gRPC one ReadObject each",
            (false, _) => "JSON one GET each, gRPC one stream",
        };
        format!(" Each reader wants many ranges of {each} of its object at once: {how}.")
    } else if reads && !matches!(range, "" | "0") {
        format!(" Each read takes {range} of each object (Read range size, under advanced).")
    } else {
        String::new()
    };
    // The hint follows the form: with a bucket (or an endpoint) set, it is
    // not "set the Bucket field".
    let hint = match (options.bucket.trim(), options.endpoint.trim()) {
        ("", "") => "Set the Bucket field for real GCS; ? lists the keys.",
        (_, "") => {
            "Runs go to that bucket on real GCS (clear the Bucket field for the built-in emulator); ? lists the keys."
        }
        _ => "Runs go to the JSON endpoint set under advanced; ? lists the keys.",
    };
    let (verb, what) = if workload == "append" {
        (
            " to append to ",
            "Each round writes new objects in appends, waiting for each flush to be persisted: gRPC appendable objects, JSON (which has none) a resumable upload's chunks; the table below compares them when the run ends.",
        )
    } else if w1r3 {
        (
            " to write to and read from ",
            "Each round writes new objects and then reads each of them three times, on one transport and then the other; this pane shows their throughput live, and the table below compares uploads and reads, each with its own verdict.",
        )
    } else if reads {
        (
            " to read from ",
            "The objects to read are uploaded first (not timed); then both transports read them in turn; this pane shows their throughput live, and the table below compares them when the run ends.",
        )
    } else {
        (
            " to upload to ",
            "Both transports upload the same payload in turn; this pane shows their throughput live, and the table below compares them when the run ends.",
        )
    };
    // Open loop: the offer sets the throughput; what the pane shows that
    // tells the transports apart is latency from each arrival's intended start.
    let what = match schedule.rate.trim() {
        "" => what.to_string(),
        rate => what.replace(
            "this pane shows their throughput live",
            &format!("arrivals come at {rate}/s, so this pane shows their latency from each one's intended start live"),
        ),
    };
    Welcome { verb, article: true, what: format!("{what}{reads_what}"), hint }
}
