// kubeupd's krusty harness (scripts/krusty): this file takes the place of kustomize's
// testutils/kusttest/plugintestenv.go in the copy of sigs.k8s.io/kustomize/api that
// scripts/krusty.sh makes for a run. The builds run in an external binary, so nothing is compiled
// for them: builtin plugins are in the binary; a test that needs a Go or exec plugin of
// kustomize's repository (whose sources are not in the api module) is skipped, saying which.
package kusttest_test

import (
	"testing"

	"sigs.k8s.io/kustomize/api/konfig"
)

type pluginTestEnv struct {
	t *testing.T
}

func newPluginTestEnv(t *testing.T) *pluginTestEnv {
	t.Helper()
	return &pluginTestEnv{t: t}
}

func (x *pluginTestEnv) set() *pluginTestEnv { return x }

func (x *pluginTestEnv) reset() {}

func (x *pluginTestEnv) prepareGoPlugin(g, v, k string) {
	if g == konfig.BuiltinPluginPackage {
		return
	}
	x.t.Skipf("Go plugin %s/%s/%s: built from kustomize's repository, loaded only by a kustomize built with it", g, v, k)
}

func (x *pluginTestEnv) prepareExecPlugin(g, v, k string) {
	x.t.Skipf("exec plugin %s/%s/%s: its program is in kustomize's repository, not in the api module", g, v, k)
}
