// Times Kubernetes' own strategic merge patch (k8s.io/apimachinery) on the inputs that
// `KUBEUPD_BENCH_DUMP=DIR cargo bench --bench merge` writes, to compare with kubeupd's engine.
// Built and run by scripts/bench-go-smp.sh, with the apimachinery of its go.mod.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// measure runs f repeatedly for about three seconds and returns the mean time per call.
func measure(f func()) time.Duration {
	for i := 0; i < 10; i++ {
		f()
	}
	start := time.Now()
	n := 0
	for time.Since(start) < 3*time.Second {
		f()
		n++
	}
	return time.Since(start) / time.Duration(n)
}

func main() {
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		var documents map[string]json.RawMessage
		if err := json.Unmarshal(data, &documents); err != nil {
			panic(err)
		}
		original, modified, current := documents["original"], documents["modified"], documents["current"]
		var schema strategicpatch.LookupPatchMeta
		if strings.Contains(string(original), `"kind":"ConfigMap"`) {
			schema, err = strategicpatch.NewPatchMetaFromStruct(corev1.ConfigMap{})
		} else {
			schema, err = strategicpatch.NewPatchMetaFromStruct(appsv1.Deployment{})
		}
		if err != nil {
			panic(err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, schema, true)
		if err != nil {
			panic(err)
		}
		threeWay := measure(func() { strategicpatch.CreateThreeWayMergePatch(original, modified, current, schema, true) })
		apply := measure(func() { strategicpatch.StrategicMergePatch(current, patch, schema) })
		// CreateThreeWayMergePatch starts by decoding its three documents; time that part alone.
		decode := measure(func() {
			for _, document := range [][]byte{original, modified, current} {
				decoded := map[string]interface{}{}
				if err := kjson.Unmarshal(document, &decoded); err != nil {
					panic(err)
				}
			}
		})
		fmt.Printf("go three_way_bytes/%s %.3f ms\n", name, float64(threeWay.Microseconds())/1000)
		fmt.Printf("go apply_bytes/%s %.3f ms\n", name, float64(apply.Microseconds())/1000)
		fmt.Printf("go three_way (without decoding)/%s %.3f ms\n", name, float64((threeWay-decode).Microseconds())/1000)
	}
}
