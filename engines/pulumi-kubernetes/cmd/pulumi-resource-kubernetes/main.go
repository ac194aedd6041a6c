// The Kubernetes provider's plugin: the provider package serves the gRPC resource provider
// with the schema and Terraform mapping embedded at build time (engines/pulumi-kubernetes/prepare
// writes them here from the upstream module's schema.json and terraform-mapping.json).
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var schema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, schema, terraformMapping)
}
