module github.com/quadrant-bench/quadrant

go 1.24.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/expr-lang/expr v1.17.8
	github.com/go-sql-driver/mysql v1.10.1
	github.com/gosnmp/gosnmp v1.47.0
	go.yaml.in/yaml/v3 v3.0.6
)

require filippo.io/edwards25519 v1.2.0 // indirect
