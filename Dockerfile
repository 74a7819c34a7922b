# A static image of quiver serve: the quiver command and its sandbox
# launcher, built without cgo, on distroless's static base (CA
# certificates, /etc/passwd with a nonroot user, no shell). It serves the
# in-process tools (files, search through the library, the output cache,
# web_fetch); commands need programs the image does not have, so a host
# that wants exec_command builds FROM a distribution with them instead.
# docs/deploy.md runs it under Kubernetes.
#
#   docker build -t quiver .
#   docker run --rm -p 8765:8765 -e QUIVER_TOKEN=... quiver
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
RUN go build -ldflags="-s -w" -o /out/quiver ./cmd/quiver && \
    go build -ldflags="-s -w" -o /out/quiver-sandbox ./cmd/quiver-sandbox

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/quiver /out/quiver-sandbox /usr/local/bin/
WORKDIR /workspace
USER nonroot:nonroot
EXPOSE 8765
ENTRYPOINT ["/usr/local/bin/quiver"]
CMD ["serve", "--http", "0.0.0.0:8765", "--root", "/workspace", "--token-env", "QUIVER_TOKEN"]
