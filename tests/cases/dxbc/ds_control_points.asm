// texlate fixture (written for texlate): a domain shader's input control points vicp[point][register]; Wine's D3DDisassemble prints every operand of its assembled blob as written here
ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_resource_texture2d (float,float,float,float) t2
dcl_sampler s1, mode_default
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyzw
dcl_output_siv o0.xyzw, position
dcl_temps 1
mov r0.xy, vicp[1][0].xyxx
sample_l r0.xyzw, r0.xyxx, t2.xyzw, s1, l(1.500000)
mad o0.xyzw, vicp[2][0].xyzw, vDomain.xxxx, r0.xyzw
ret 
