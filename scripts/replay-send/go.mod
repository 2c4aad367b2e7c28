module kubeupd.local/replay-send

go 1.26
