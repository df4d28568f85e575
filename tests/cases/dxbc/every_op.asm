// texlate fixture: one of every DXBC texture instruction (written for texlate, not fxc output)
ps_5_0
dcl_sampler s0, mode_default
dcl_sampler s1, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2darray (float,float,float,float) t1
dcl_resource_texturecube (float,float,float,float) t2
dcl_resource_texture2dms(4) (float,float,float,float) t3
dcl_resource_buffer (uint,uint,uint,uint) t4
dcl_resource_raw t5
dcl_resource_structured t6, 16
dcl_resource_texture3d (sint,sint,sint,sint) t7
dcl_uav_typed_texture2d (float,float,float,float) u0
dcl_input_ps linear v1.xyzw
dcl_output o0.xyzw
dcl_temps 4
sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0
sample_aoffimmi_indexable(1,-2,0)(texture2d)(float,float,float,float) r0.xz, v1.xyxx, t0.yxzw, s0
sample_b_indexable(texture2d)(float,float,float,float) r0.x, v1.xyxx, t0.xyzw, s0, l(0.500000)
sample_l_indexable(texture2darray)(float,float,float,float) r1.xyzw, v1.xyzx, t1.xyzw, s0, r2.w
sample_d_indexable(texture2d)(float,float,float,float) r1.xy, v1.xyxx, t0.xyzw, s0, r2.xyxx, r2.zwzz
sample_c_indexable(texture2d)(float,float,float,float) r1.x, v1.xyxx, t0.xxxx, s1, v1.z
sample_c_lz_indexable(texturecube)(float,float,float,float) r1.x, v1.xyzx, t2.xxxx, s1, v1.w
ld_indexable(texture2d)(float,float,float,float) r2.xyzw, r3.xyzw, t0.xyzw
ld_aoffimmi_indexable(-1,0,0)(texture2darray)(float,float,float,float) r2.xyzw, r3.xyzw, t1.xyzw
ldms_indexable(texture2dms)(float,float,float,float) r2.xyzw, r3.xyxx, t3.xyzw, l(1)
ld_indexable(buffer)(uint,uint,uint,uint) r2.x, r3.xxxx, t4.xyzw
gather4_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0.y
gather4_c_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s1.x, v1.z
gather4_po_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, r3.xyxx, t0.xyzw, s0.w
gather4_po_c_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, r3.zwzz, t0.xyzw, s1.x, v1.z
lod_indexable(texture2d)(float,float,float,float) r0.xy, v1.xyxx, t0.xyzw, s0
resinfo_indexable(texture2d)(float,float,float,float)_uint r0.xyzw, l(0), t0.xyzw
resinfo_indexable(texture3d)(sint,sint,sint,sint) r0.xyz, r1.x, t7.xyzw
sampleinfo_indexable(texture2dms)(float,float,float,float)_uint r0.x, t3.x
samplepos_indexable(texture2dms)(float,float,float,float) r0.xy, t3.xyxx, l(2)
bufinfo_indexable(buffer)(uint,uint,uint,uint) r0.x, t4.xxxx
ld_uav_typed_indexable(texture2d)(float,float,float,float) r0.xyzw, r3.xyyy, u0.xyzw
ld_raw_indexable(raw_buffer)(mixed,mixed,mixed,mixed) r0.xy, l(16), t5.xyxx
ld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.xyzw, r3.x, l(4), t6.xyzw
gather4_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, t0.xyzw, s0.x
gather4_c_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, t0.xyzw, s1.x, v1.z
gather4_po_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, r3.xyxx, t0.xyzw, s0.x
gather4_po_c_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, r3.xyxx, t0.xyzw, s1.x, v1.z
ld_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, r3.xyzw, t0.xyzw
ldms_s_indexable(texture2dms)(float,float,float,float) r0.xyzw, r1.x, r3.xyxx, t3.xyzw, l(0)
ld_uav_typed_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, r3.xyyy, u0.xyzw
ld_raw_s_indexable(raw_buffer)(mixed,mixed,mixed,mixed) r0.x, r1.x, l(0), t5.xxxx
ld_structured_s_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.xyzw, r1.x, r3.x, l(0), t6.xyzw
sample_l_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, t0.xyzw, s0, l(0.000000)
sample_c_lz_s_indexable(texture2d)(float,float,float,float) r0.x, r1.x, v1.xyxx, t0.xxxx, s1, v1.z
sample_cl_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, t0.xyzw, s0, l(1.000000)
sample_b_cl_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, t0.xyzw, s0, l(0.500000), l(1.000000)
sample_d_cl_s_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.x, v1.xyxx, t0.xyzw, s0, r2.xyxx, r2.zwzz, l(1.000000)
sample_c_cl_s_indexable(texture2d)(float,float,float,float) r0.x, r1.x, v1.xyxx, t0.xxxx, s1, v1.z, l(1.000000)
sample r0.xyzw, v1.xyxx, t0.xyzw, s0
ret 
