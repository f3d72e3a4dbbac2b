//! `--reflect`: the service's types asked of the server itself, by gRPC
//! server reflection (`grpc.reflection.v1`, else the older `v1alpha` that
//! grpcio and many servers still serve alone): the services it lists, the
//! file that holds each, and every file those import.

use crate::error::{Result, ServiceError};
use crate::reach::Reach;
use prost::Message;
use prost_reflect::DescriptorPool;
use prost_reflect::prost_types::{FileDescriptorProto, FileDescriptorSet};
use std::collections::BTreeMap;
use std::time::Duration;
use tonic::Code;

/// The reflection services themselves, listed by the server, not asked after.
const REFLECTION: [&str; 2] = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"];

/// Every file the server's services need, as it describes them.
pub async fn reflect(reach: &Reach) -> Result<DescriptorPool> {
    let url = &reach.grpc_endpoint;
    let endpoint = wire::channels::endpoint(url, &reach.trust()?)
        .map_err(|message| ServiceError::Own { kind: crate::error::INPUT, message })?;
    let counted = wire::connections::CountConnections::default();
    let channel = wire::channels::connect(endpoint, &counted).await.map_err(|e| {
        let why = wire::connections::root_cause(&e);
        ServiceError::Own {
            kind: crate::error::INPUT,
            message: format!("--reflect: cannot reach {url} over gRPC ({why}): check --grpc-endpoint"),
        }
    })?;
    let headers = reach.header_map()?;
    let asking = async {
        match v1::files(channel.clone(), &headers).await {
            Err(status) if status.code() == Code::Unimplemented => v1alpha::files(channel, &headers).await,
            answered => answered,
        }
    };
    let files = match tokio::time::timeout(Duration::from_secs(10), asking).await {
        Ok(Ok(files)) => files,
        Ok(Err(status)) if status.code() == Code::Unimplemented => {
            return Err(ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!(
                    "--reflect: {url} serves no gRPC reflection: give the service's .proto with --proto, or --descriptor-set"
                ),
            });
        }
        Ok(Err(status)) => {
            let code = wire::connections::grpc_code_name(status.code());
            let said = format!("--reflect: {url} answered the reflection request with {code}: {}", status.message());
            return Err(ServiceError::Own { kind: crate::error::INPUT, message: said });
        }
        Err(_) => {
            return Err(ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("--reflect: {url} did not answer within 10 s"),
            });
        }
    };
    let file = files.into_values().collect();
    DescriptorPool::from_file_descriptor_set(FileDescriptorSet { file }).map_err(|e| ServiceError::Own {
        kind: crate::error::INPUT,
        message: format!("--reflect: the files {url} described do not fit together ({e})"),
    })
}

/// What a reflection answer carries, in either version's types.
enum Answer {
    Services(Vec<String>),
    Files(Vec<Vec<u8>>),
    Error(tonic::Status),
}

/// One reflection stream: each `ask` sends a request (`None`: the list of
/// services, already sent as the stream opened) and reads its answer.
trait Exchange {
    async fn ask(&mut self, wanted: Option<Wanted>) -> Result<Answer, tonic::Status>;
}

/// A file asked for by a symbol it defines, or by its name.
enum Wanted {
    Symbol(String),
    File(String),
}

/// Asks for the services, then the file of each, then every import not
/// yet described: the files by name.
async fn collect(stream: &mut impl Exchange) -> Result<BTreeMap<String, FileDescriptorProto>, tonic::Status> {
    let Answer::Services(services) = stream.ask(None).await? else {
        return Err(tonic::Status::internal("the reflection service listed no services"));
    };
    let mut wanted: Vec<Wanted> =
        services.into_iter().filter(|s| !REFLECTION.contains(&s.as_str())).map(Wanted::Symbol).collect();
    let mut files = BTreeMap::new();
    while let Some(next) = wanted.pop() {
        match stream.ask(Some(next)).await? {
            Answer::Files(described) => {
                for bytes in described {
                    let file = FileDescriptorProto::decode(&bytes[..])
                        .map_err(|e| tonic::Status::internal(format!("a file descriptor that does not decode: {e}")))?;
                    for import in &file.dependency {
                        if !files.contains_key(import) {
                            wanted.push(Wanted::File(import.clone()));
                        }
                    }
                    files.insert(file.name().to_string(), file);
                }
            }
            Answer::Error(status) => return Err(status),
            Answer::Services(_) => {}
        }
    }
    Ok(files)
}

/// The exchange in one version's types (v1 and v1alpha are the same messages).
macro_rules! reflection_in {
    ($version:ident, $($pb:ident)::+) => {
        mod $version {
            use super::{Answer, Exchange, FileDescriptorProto, Wanted, collect};
            use $($pb)::+::server_reflection_client::ServerReflectionClient;
            use $($pb)::+::server_reflection_request::MessageRequest;
            use $($pb)::+::server_reflection_response::MessageResponse;
            use $($pb)::+::{ServerReflectionRequest, ServerReflectionResponse};
            use std::collections::BTreeMap;
            use tonic::Status;

            struct Stream {
                sender: tokio::sync::mpsc::Sender<ServerReflectionRequest>,
                answers: tonic::Streaming<ServerReflectionResponse>,
            }

            fn request(message_request: MessageRequest) -> ServerReflectionRequest {
                ServerReflectionRequest { host: String::new(), message_request: Some(message_request) }
            }

            impl Exchange for Stream {
                async fn ask(&mut self, wanted: Option<Wanted>) -> Result<Answer, Status> {
                    let closed = || Status::internal("the reflection stream closed");
                    match wanted {
                        Some(Wanted::Symbol(symbol)) => self.sender.send(request(MessageRequest::FileContainingSymbol(symbol))).await.map_err(|_| closed())?,
                        Some(Wanted::File(name)) => self.sender.send(request(MessageRequest::FileByFilename(name))).await.map_err(|_| closed())?,
                        None => {}
                    }
                    Ok(match self.answers.message().await?.and_then(|a| a.message_response) {
                        Some(MessageResponse::ListServicesResponse(list)) => {
                            Answer::Services(list.service.into_iter().map(|s| s.name).collect())
                        }
                        Some(MessageResponse::FileDescriptorResponse(files)) => Answer::Files(files.file_descriptor_proto),
                        Some(MessageResponse::ErrorResponse(error)) => {
                            Answer::Error(Status::new(tonic::Code::from_i32(error.error_code), error.error_message))
                        }
                        _ => Answer::Error(closed()),
                    })
                }
            }

            /// Opens the stream with the list of services asked (a server
            /// may send its headers only with a first answer), and collects.
            pub async fn files(
                channel: tonic::transport::Channel,
                headers: &http::HeaderMap,
            ) -> Result<BTreeMap<String, FileDescriptorProto>, Status> {
                let (sender, receiver) = tokio::sync::mpsc::channel(1);
                sender.send(request(MessageRequest::ListServices(String::new()))).await.map_err(|_| Status::internal("closed"))?;
                let mut opening = tonic::Request::new(tokio_stream::wrappers::ReceiverStream::new(receiver));
                *opening.metadata_mut() = tonic::metadata::MetadataMap::from_headers(headers.clone());
                let answers = ServerReflectionClient::new(channel).server_reflection_info(opening).await?.into_inner();
                collect(&mut Stream { sender, answers }).await
            }
        }
    };
}

reflection_in!(v1, tonic_reflection::pb::v1);
reflection_in!(v1alpha, tonic_reflection::pb::v1alpha);
