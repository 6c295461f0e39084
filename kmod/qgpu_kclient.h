/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu's own RM client in the backend driver, through the driver's interface for kernel modules
 * (nvidia_get_rm_ops(), or nvsim's identical nvsim_get_rm_ops()). Kernel privilege and kernel
 * pointers: nothing qgpu asks or is told here passes through tenant memory.
 */
#ifndef QGPU_KCLIENT_H
#define QGPU_KCLIENT_H

#include <linux/types.h>

#include "nvrm/nvrm_decode.h"

struct qgpu_gpu;

int qgpu_kclient_init(const struct nvrm_abi *abi);
int qgpu_kclient_driver_version(char *buf, size_t len);
void qgpu_kclient_exit(void);
bool qgpu_kclient_ready(void);
const char *qgpu_kclient_source(void);
u32 qgpu_kclient_alloc(u32 hparent, u32 hclass, void *params, u32 *hnew);
u32 qgpu_kclient_alloc_in(u32 hclient, u32 hparent, u32 hclass, void *params, u32 *hnew);
u32 qgpu_kclient_vid_heap_in(struct nvrm_nvos32 *p);
u32 qgpu_kclient_free(u32 hobject);
u32 qgpu_kclient_control(u32 hobject, u32 cmd, void *params, u32 size);
u32 qgpu_kclient_control_in(u32 hclient, u32 hobject, u32 cmd, void *params, u32 size);
u32 qgpu_kclient_free_in(u32 hclient, u32 hobject);
u32 qgpu_kclient_class_of(u32 hclient, u32 handle, u32 *hclass);
u32 qgpu_kclient_dup(u32 hparent, u32 hclient_src, u32 hobject_src, u32 *hnew);
u32 qgpu_kclient_dup_in(struct nvrm_nvos55 *p);
u32 qgpu_kclient_client(void);
u32 qgpu_kclient_subdevice(struct qgpu_gpu *gpu, u32 *hsubdevice);
u32 qgpu_kclient_map(u32 hdevice, u32 hmemory, u64 offset, u64 length, u64 *linear);
u32 qgpu_kclient_unmap(u32 hdevice, u32 hmemory, u64 linear);

#endif /* QGPU_KCLIENT_H */
