module resize-operator.dev/test/goclients

go 1.26.0

require (
	cloud.google.com/go/compute v1.75.0 // indirect
	google.golang.org/api v0.311.0 // indirect
)
