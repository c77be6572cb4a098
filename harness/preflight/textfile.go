// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// TextfileName is the node_exporter textfile preflight writes.
const TextfileName = "p2pconf.prom"

// Labels follow dcgm-exporter's GPU metrics, so the two join in one query
// on UUID or pci_bus_id: gpu, UUID, pci_bus_id, device, modelName and
// Hostname, with the same value forms (pci_bus_id "00000000:1B:00.0",
// device "nvidia0", modelName "NVIDIA H200"). dcgm-exporter 4.5.3-4.8.2
// writes them in internal/pkg/rendermetrics/render_metrics.go
// (gpu="{{ $metric.GPU }}",UUID=...,pci_bus_id=...,device=...,modelName=...,
// Hostname=...), device as fmt.Sprintf("nvidia%d", gpu) and pci_bus_id as
// DCGM's PCI busId in internal/pkg/collector/base_collector.go; its main
// branch after that release renames Hostname to hostname (#655). peer_gpu
// and peer_UUID name a pair's other GPU (as dcgm-exporter's
// DCGM_EXP_P2P_STATUS does). gpu is the CUDA ordinal, which is
// dcgm-exporter's gpu (the NVML index) when CUDA_DEVICE_ORDER=PCI_BUS_ID and
// every GPU is visible; device carries the NVML index itself.
var (
	gpuLabels  = []string{"Hostname", "gpu", "UUID", "pci_bus_id", "device", "modelName"}
	pairLabels = []string{"Hostname", "gpu", "UUID", "pci_bus_id", "device", "modelName", "peer_gpu", "peer_UUID"}
)

// VerdictValue is how the gauges encode a verdict: 0 PASS, 1 WARN,
// 2 UNKNOWN, 3 FAIL (the higher, the worse).
func VerdictValue(s Status) float64 { return float64(rank(s)) }

const verdictHelp = " (0 PASS, 1 WARN, 2 UNKNOWN, 3 FAIL)."

// Registry holds the verdict's metrics, ready to gather.
func Registry(v Verdict) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	host := v.Host
	node := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_node_verdict",
		Help: "The node's preflight verdict" + verdictHelp}, []string{"Hostname"})
	gpu := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_gpu_verdict",
		Help: "A GPU's preflight verdict" + verdictHelp}, gpuLabels)
	gpuCheck := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_gpu_check_verdict",
		Help: "A check's preflight verdict on one GPU" + verdictHelp}, append(append([]string{}, gpuLabels...), "check"))
	pair := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_pair_verdict",
		Help: "An ordered pair's preflight verdict, gpu to peer_gpu" + verdictHelp}, pairLabels)
	pairCheck := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_pair_check_verdict",
		Help: "A check's preflight verdict on one ordered pair, gpu to peer_gpu" + verdictHelp}, append(append([]string{}, pairLabels...), "check"))
	bw := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_copy_bandwidth_bytes_per_second",
		Help: "Peer copy bandwidth from gpu to peer_gpu at the largest size of bandwidth.link-efficiency (median of the timed batches, data verified)."},
		append(append([]string{}, pairLabels...), "direction", "engine"))
	eff := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_link_efficiency_ratio",
		Help: "Peer copy bandwidth from gpu to peer_gpu as a fraction of the link's nominal rate that NVML describes."},
		append(append([]string{}, pairLabels...), "direction", "engine"))
	last := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_last_run_timestamp_seconds",
		Help: "When the preflight run ended, in seconds since the Unix epoch."}, []string{"Hostname"})
	dur := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_preflight_last_run_duration_seconds",
		Help: "How long the preflight run took."}, []string{"Hostname"})
	info := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "p2pconf_build_info",
		Help: "The p2pconf build that wrote these metrics (always 1)."}, []string{"version", "commit", "goversion"})
	for _, c := range []prometheus.Collector{node, gpu, gpuCheck, pair, pairCheck, bw, eff, last, dur, info} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("preflight.Registry: %w", err)
		}
	}
	node.WithLabelValues(host).Set(VerdictValue(v.Verdict))
	for _, t := range v.GPUs {
		l := []string{host, t.ID, t.UUID, t.BusID, t.Device, t.Model}
		gpu.WithLabelValues(l...).Set(VerdictValue(t.Verdict))
		for _, o := range t.Checks {
			gpuCheck.WithLabelValues(append(l, o.Check)...).Set(VerdictValue(o.Verdict))
		}
	}
	for _, t := range v.Pairs {
		if t.Src == nil || t.Dst == nil {
			continue
		}
		l := []string{host, strconv.Itoa(*t.Src), t.UUID, t.BusID, t.Device, t.Model, strconv.Itoa(*t.Dst), t.PeerID}
		pair.WithLabelValues(l...).Set(VerdictValue(t.Verdict))
		for _, o := range t.Checks {
			pairCheck.WithLabelValues(append(l, o.Check)...).Set(VerdictValue(o.Verdict))
		}
		if t.Bandwidth != nil {
			bw.WithLabelValues(append(l, "unidirectional", "copy")...).Set(*t.Bandwidth * 1e9)
		}
		if t.Efficiency != nil {
			eff.WithLabelValues(append(l, "unidirectional", "copy")...).Set(*t.Efficiency)
		}
	}
	if v.End != nil {
		last.WithLabelValues(host).Set(float64(v.End.UnixNano()) / 1e9)
	}
	dur.WithLabelValues(host).Set(v.Duration)
	version, commit := v.Tool.Version, v.Tool.Commit
	if version == "" {
		version = "unknown"
	}
	if commit == "" {
		commit = "unknown"
	}
	info.WithLabelValues(version, commit, runtime.Version()).Set(1)
	return reg, nil
}

// WriteTextfile writes the verdict's metrics into dir/p2pconf.prom for
// node_exporter's textfile collector: to a temporary file in dir first,
// renamed into place, so the collector never reads half a file; no sample
// carries a timestamp.
func WriteTextfile(dir string, v Verdict) (string, error) {
	reg, err := Registry(v)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("preflight.WriteTextfile: %w", err)
	}
	path := filepath.Join(dir, TextfileName)
	if err := prometheus.WriteToTextfile(path, reg); err != nil {
		return "", fmt.Errorf("preflight.WriteTextfile: %s: %w", path, err)
	}
	return path, nil
}
