//! Snapshots of the app with the any-service (grpc) target: its form at
//! three sizes, with etcd's Put as a user would fill it in.

mod views;
use gcs_speed_tui::config::FormOptions;
use gcs_speed_tui::grpc_service::form::GrpcOptions;
use gcs_speed_tui::tui::app::App;
use views::three_sizes;

#[test]
fn grpc_form() {
    let mut options = FormOptions { target: "grpc".into(), ..FormOptions::default() };
    let g = options.options_mut::<GrpcOptions>();
    g.method = "etcdserverpb.KV/Put".into();
    g.protos = "/usr/share/gocode/src/go.etcd.io/etcd/etcdserver/etcdserverpb/rpc.proto".into();
    let gocode = "/usr/share/gocode/src";
    g.import_paths = format!(
        "{gocode}/go.etcd.io, {gocode}/github.com/gogo/protobuf, {gocode}/github.com/grpc-ecosystem/grpc-gateway/third_party/googleapis"
    );
    g.grpc_endpoint = "http://127.0.0.1:2379".into();
    g.data = r#"{"key":"{{base64 bench/{{run}}/{{seq}}}}","value":"dmFsdWU="}"#.into();
    insta::assert_snapshot!(three_sizes(&App::new(options, Default::default(), false)));
}
