/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: the channels and channel groups an instance holds, counted and bounded (qgpu_channels.c).
 */
#ifndef QGPU_CHANNELS_H
#define QGPU_CHANNELS_H

#include <linux/sysfs.h>
#include <linux/types.h>

struct qgpu_instance;

bool qgpu_is_channel_class(u32 hclass);
bool qgpu_channels_counted(u32 hclass);
bool qgpu_channels_reserve(struct qgpu_instance *inst);
void qgpu_channels_force(struct qgpu_instance *inst);
void qgpu_channels_put(struct qgpu_instance *inst);

extern const struct attribute_group qgpu_channels_instance_group;

#endif /* QGPU_CHANNELS_H */
