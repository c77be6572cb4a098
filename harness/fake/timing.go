// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package fake

import (
	"time"

	"github.com/p2pconf/p2pconf/harness/topology"
)

// peerEfficiency is the share of the link's nominal rate the fake's copies
// between two GPUs reach in event time: 396 of 478 GB/s, measured on two
// H200 over 18 NVLinks. Go's memcpy on the test machine is far slower than
// any GPU link, so event time for such a copy is modelled: the stream's
// clock advances by bytes / rate for it, whatever the copy took in wall
// time. Everything else on a stream keeps wall time.
const peerEfficiency = 0.83

// peerRate is the modelled rate (bytes/s) of a copy from GPU src's memory
// to GPU dst's, or 0 when NVML gives no nominal rate (the copy then keeps
// wall time). A pair with peer access enabled either way moves at
// peerEfficiency of NVML's nominal for the pair; otherwise the copy is
// staged through host memory and moves at half of peerEfficiency of the
// narrower PCIe link (two hops, one after the other), as it does under
// host-staged-peer-copy on every pair.
func (b *Backend) peerRate(src, dst int) float64 {
	b.mu.Lock()
	direct := b.pairs[src][dst].p2p && (b.peerAPI[src][dst] || b.peerAPI[dst][src]) && !b.defects.has(dHostStagedPeerCopy)
	b.mu.Unlock()
	key := [3]int{src, dst, 0}
	if direct {
		key[2] = 1
	}
	if r, ok := b.peerRates.Load(key); ok {
		return r.(float64)
	}
	ref := func(i int) topology.GPURef {
		info := b.devs[i].info
		return topology.GPURef{Name: info.Name, UUID: info.UUID, PCIBusID: info.PCIBusID}
	}
	var rate float64
	if direct {
		if n, err := topology.PairNominal(b.nvml, ref(src), ref(dst)); err == nil {
			rate = n.GBps * 1e9 * peerEfficiency
		}
	} else {
		a, errA := topology.HostNominal(b.nvml, ref(src))
		c, errC := topology.HostNominal(b.nvml, ref(dst))
		if errA == nil && errC == nil {
			rate = min(a.GBps, c.GBps) * 1e9 * peerEfficiency / 2
		}
	}
	b.peerRates.Store(key, rate)
	return rate
}

// modelPeerTime sets the stream's clock so that the copy of n bytes that
// just ended on st took n / rate since the stream's previous operation
// ended (slow-peer-copy's rate under that defect).
func (b *Backend) modelPeerTime(st *stream, src, dst int, n uint64) {
	rate := b.peerRate(src, dst)
	if b.defects.has(dSlowPeerCopy) {
		rate = slowPeerRate
	}
	if rate <= 0 {
		return
	}
	now := time.Now().UnixNano()
	took := now - st.lastDone
	if st.lastDone == 0 {
		took = 0
	}
	model := int64(float64(n) / rate * float64(time.Second))
	st.adj.Add(model - took)
}

// clock is the stream's event time now: wall time plus the modelled
// difference of its copies between GPUs.
func (s *stream) clock() int64 { return time.Now().UnixNano() + s.adj.Load() }
