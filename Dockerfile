# The image `quadrant kube` runs: quadrant alone, static, as a non-root user.
#   docker build -t registry.example/quadrant:1.0 --build-arg VERSION=1.0 .
# Shards run builtin, transactions and tpcc workloads, which need nothing else. A plan
# with shell steps (run by the leader) needs a shell: build FROM debian:bookworm-slim
# instead of the distroless base below.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=${VERSION}" -o /quadrant ./cmd/quadrant

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /quadrant /usr/local/bin/quadrant
# The Job mounts the plan at /plan and the results at /results.
WORKDIR /results
ENTRYPOINT ["/usr/local/bin/quadrant"]
