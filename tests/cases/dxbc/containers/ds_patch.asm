// A domain shader (written for texlate's tests): it reads the control points (ISGN) and
// the patch constants (PCSG), and writes the vertex (OSGN).
ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_globalFlags refactoringAllowed
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyz
dcl_input_siv vpc0.x, finalTriUeq0EdgeTessFactor
dcl_input_siv vpc1.x, finalTriVeq0EdgeTessFactor
dcl_input_siv vpc2.x, finalTriWeq0EdgeTessFactor
dcl_input_siv vpc3.x, finalTriInsideTessFactor
dcl_output_siv o0.xyzw, position
dcl_temps 1
mul r0.xyz, vDomain.yyyy, vicp[1][0].xyzx
mad r0.xyz, vicp[0][0].xyzx, vDomain.xxxx, r0.xyzx
mad o0.xyz, vicp[2][0].xyzx, vDomain.zzzz, r0.xyzx
mov o0.w, l(1.000000)
ret
