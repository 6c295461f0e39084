/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qgpu: the RM objects an instance's tenants hold, counted and bounded (qgpu_objects.c).
 */
#ifndef QGPU_OBJECTS_H
#define QGPU_OBJECTS_H

#include <linux/sysfs.h>
#include <linux/types.h>

struct qgpu_instance;
struct qgpu_rmtrack;

bool qgpu_objects_reserve(struct qgpu_rmtrack *t, u32 n);
void qgpu_objects_settle(struct qgpu_rmtrack *t);
void qgpu_objects_mirrored(struct qgpu_rmtrack *t);
void qgpu_objects_gone(struct qgpu_instance *inst);
bool qgpu_objects_bounded(struct qgpu_instance *inst);
bool qgpu_objects_unmade(u32 hclient, u32 handle);

extern const struct attribute_group qgpu_objects_instance_group;

#endif /* QGPU_OBJECTS_H */
