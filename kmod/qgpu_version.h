/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place the module's version is written; dkms.conf and pyproject.toml carry the same
 * string and a host test keeps the three in step.
 */
#ifndef QGPU_VERSION_H
#define QGPU_VERSION_H

#define QGPU_VERSION "0.1.0"

#endif /* QGPU_VERSION_H */
