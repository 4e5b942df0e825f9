# A static referee image: docker build -t referee . && docker run --rm referee run jcs
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.1.0-dev
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/refereehq/referee/internal/cli.Version=${VERSION}" \
    -o /referee ./cmd/referee

FROM scratch
COPY --from=build /referee /referee
ENTRYPOINT ["/referee"]
CMD ["--help"]
