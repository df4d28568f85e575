// A vertex shader without signature tables (written for texlate's tests): the signatures
// come from the declarations.
vs_5_0
dcl_globalFlags refactoringAllowed
dcl_input v0.xyz
dcl_input_sgv v1.x, vertex_id
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_output o1.zw
dcl_output_siv o2.x, clip_distance
dcl_output_siv o2.y, clip_distance
dcl_output_siv o3.x, rendertarget_array_index
dcl_temps 1
mov o0.xyz, v0.xyzx
mov o0.w, l(1.000000)
utof r0.x, v1.x
mov o1.xyzw, r0.xxxx
mov o2.xy, v0.xyxx
mov o3.x, v1.x
ret
