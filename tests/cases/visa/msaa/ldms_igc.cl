#pragma OPENCL EXTENSION cl_khr_gl_msaa_sharing : enable
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void ldms_2d(read_only image2d_msaa_t img, __global const int4* in, __global float4* out) {
  int i = get_global_id(0); int4 a = in[i]; out[i] = read_imagef(img, (int2)(a.x, a.y), a.z);
}
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void ldms_2darr(read_only image2d_array_msaa_t img, __global const int4* in, __global float4* out) {
  int i = get_global_id(0); int4 a = in[i]; out[i] = read_imagef(img, (int4)(a.x, a.y, a.w, 0), a.z);
}
