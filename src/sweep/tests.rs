use super::*;
use crate::config::Options;
use crate::etcd::options::EtcdConfig;
use crate::gcs::planned::GcsPlan;

fn gcs_form() -> FormOptions {
    form_of(Options { iterations: "3".into(), ..Options::default() })
}

/// A form that runs GCS with `options` (their schedule the form's).
fn form_of(options: Options) -> FormOptions {
    FormOptions::with(options.clone(), options.schedule_args())
}

fn plan(texts: &[&str], budget: Option<&str>, form: &FormOptions) -> Result<Sweep, String> {
    let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
    Sweep::plan(&texts, budget, form, &Environment::default()).map_err(|e| e.message)
}

#[test]
fn two_options_make_a_grid_run_in_a_shuffled_order() {
    let sweep = plan(&["size=1MiB,4MiB", "concurrency=1,2,3"], None, &gcs_form()).unwrap();
    // 2 sizes x 3 concurrencies, the first option outermost.
    let said: Vec<String> = sweep.points.iter().map(|(p, _)| said(p)).collect();
    assert_eq!(
        said,
        [
            "size=1MiB concurrency=1",
            "size=1MiB concurrency=2",
            "size=1MiB concurrency=3",
            "size=4MiB concurrency=1",
            "size=4MiB concurrency=2",
            "size=4MiB concurrency=3"
        ]
    );
    let mut order = sweep.order.clone();
    order.sort_unstable();
    assert_eq!(order, [0, 1, 2, 3, 4, 5], "a permutation of the points");
    // Each point is planned with its values: 4 MiB objects, 3 at once.
    let config = &sweep.points[5].1.as_any().downcast_ref::<GcsPlan>().expect("a GCS point").config;
    assert_eq!((config.object_size, config.concurrency), (4 << 20, 3));
}

#[test]
fn shuffles_differ_between_sweeps() {
    // 8 points have 40320 orders: 20 sweeps all alike would mean no shuffle.
    let orders: Vec<Vec<usize>> = (0..20).map(|_| shuffled(8)).collect();
    assert!(orders.iter().any(|o| *o != orders[0]), "{orders:?}");
}

#[test]
fn bad_sweeps_are_one_sentence() {
    let form = gcs_form();
    let error = |texts: &[&str], budget: Option<&str>| plan(texts, budget, &form).err().unwrap();
    assert!(
        error(&["nope=1,2"], None)
            .starts_with("--sweep 'nope=1,2': this run has no option 'nope'; sweep one of size, iterations")
    );
    for unswept in ["workload=upload,ranges", "transports=both,grpc"] {
        let said = error(&[unswept], None);
        assert!(said.contains("is not swept: it changes what is compared"), "{said}");
        assert!(!said.contains("sweep one of transports") && !said.contains(", workload,"), "{said}");
    }
    assert_eq!(error(&["size"], None), "--sweep 'size': write OPTION=V1,V2,..., like size=1MiB,16MiB");
    assert!(error(&["size=1MiB,,2MiB"], None).contains("a value is empty"));
    assert!(error(&["size=1MiB,1MiB"], None).contains("'1MiB' is given twice"));
    assert!(error(&["size=1MiB", "size=2MiB"], None).contains("--sweep size is given twice"));
    assert!(error(&["target=etcd"], None).contains("this run has no option 'target'"));
    // A value the target refuses names the point and says the target's sentence.
    let refused = error(&["size=1MiB,lots"], None);
    assert!(refused.starts_with("--sweep point size=lots: "), "{refused}");
    assert!(error(&["warmup=perhaps"], None).contains("'perhaps' is not true or false"));
    assert!(error(&[], Some("10m")).starts_with("--sweep-budget shares a budget out"));
}

#[test]
fn a_budget_is_shared_out_as_each_point_duration() {
    let sweep = plan(&["concurrency=1,2,4"], Some("1m"), &gcs_form()).unwrap();
    assert_eq!(sweep.share, Some(Duration::from_secs(20)), "60 s over 3 points");
    let config = &sweep.points[0].1.as_any().downcast_ref::<GcsPlan>().expect("a GCS point").config;
    assert_eq!(config.duration, Some(Duration::from_secs(20)));
    let with_duration = form_of(Options { duration: "30s".into(), ..Options::default() });
    assert!(plan(&["concurrency=1,2"], Some("1m"), &with_duration).err().unwrap().contains("give one or the other"));
    assert!(plan(&["concurrency=1,2"], Some("1s"), &gcs_form()).err().unwrap().contains("under a second"));
}

#[test]
fn etcd_options_are_swept_by_their_flags() {
    let mut form = gcs_form();
    form.target = "etcd".into();
    let sweep = plan(&["clients=1,4", "value-size=64,1024"], None, &form).unwrap();
    assert_eq!(sweep.points.len(), 4);
    let config = sweep.points[3].1.as_any().downcast_ref::<EtcdConfig>().expect("an etcd point");
    assert_eq!((config.clients, config.value_size), (4, 1024));
}

#[test]
fn a_swept_option_given_as_a_flag_too_is_refused() {
    let form = form_of(Options { rate: "300".into(), ..Options::default() });
    let said = plan(&["rate=100,200"], None, &form).unwrap().refuse_flags_swept(&form).err().unwrap();
    assert_eq!(said, "--sweep rate: --rate 300 is given too: drop it, the sweep sets rate at each point");
    // Left at its default, the option is the sweep's alone.
    let form = form_of(Options::default());
    assert!(plan(&["rate=100,200"], None, &form).unwrap().refuse_flags_swept(&form).is_ok());
    // A flag the sweep does not set is the user's to give.
    let form = form_of(Options { size: "8MiB".into(), ..Options::default() });
    assert!(plan(&["rate=100,200"], None, &form).unwrap().refuse_flags_swept(&form).is_ok());
}
