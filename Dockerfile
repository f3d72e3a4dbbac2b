# The image a fleet runs (assets/k8s/job.yaml): the binary alone, as a
# non-root user, on a small runtime with CA certificates and glibc.
#
#   docker build -t REGION-docker.pkg.dev/PROJECT/REPOSITORY/gcs-speed-tui:latest .
#   docker push REGION-docker.pkg.dev/PROJECT/REPOSITORY/gcs-speed-tui:latest

# Build stage: the same Cargo.lock (--locked) and the same profile as CI's
# tests (cargo's dev profile, as Cargo.toml sets it: dependencies at
# opt-level 2), so the image runs the code CI tested, built the same way.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src src
COPY benches benches
RUN cargo build --locked --bin gcs-speed-tui \
    && cp target/debug/gcs-speed-tui /gcs-speed-tui

# Runtime: distroless (glibc, CA certificates, no shell), user 65532.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /gcs-speed-tui /usr/local/bin/gcs-speed-tui
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gcs-speed-tui"]
