// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package topology

// NVLinkVersionName names an nvmlNvlinkVersion_t value ("NVLink 4.0" for
// 6), for reports that describe links.
func NVLinkVersionName(v uint32) string { return nvlinkName(v) }
