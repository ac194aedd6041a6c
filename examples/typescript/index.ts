// The dev stack's cluster from TypeScript. Add the package first, from a checkout or a git
// tag: it generates the SDK under sdks/trainstack and adds it to package.json.
//   pulumi package add ../..
//   pulumi package add https://github.com/<org>/trainstack@v0.1.0
// Replace 203.0.113.0/24 (a documentation range) with your own egress range.
import * as trainstack from "@pulumi/trainstack";

const dev = new trainstack.TrainingStack("dev", {
    profile: "dev",
    region: "us-east-1",
    network: { zones: ["us-east-1a", "us-east-1b"] },
    eks: { publicAccessCidrs: ["203.0.113.0/24"] },
    nodeGroups: [{
        name: "gpu",
        instanceType: "g5.2xlarge",
        minSize: 0,
        desiredSize: 1,
        maxSize: 2,
        zone: "us-east-1a",
        rootVolume: { sizeGiB: 200 },
    }],
    observability: { prometheus: true },
    cost: { maxHourlyUsd: 10 },
    tags: { team: "ml-platform", environment: "dev" },
});

export const contract = dev.contract;
export const kubeconfig = dev.kubeconfig;
