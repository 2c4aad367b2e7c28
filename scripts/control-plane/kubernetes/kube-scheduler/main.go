// kube-scheduler as cmd/kube-scheduler builds it, for the local test cluster: it binds pods to
// kwok's fake nodes, so that workloads roll out for real.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
