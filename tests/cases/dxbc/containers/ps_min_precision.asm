// A pixel shader whose signatures hold minimum-precision elements (written for texlate's
// tests): they are written in the *1 forms (ISG1, OSG1) with each element's precision.
//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// TEXCOORD                 0   xy          0     NONE  min16f   xy  
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Target                0   xyzw        0   TARGET  min16f   xyzw
//
ps_5_0
dcl_globalFlags refactoringAllowed | enableMinimumPrecision
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
mov o0.xy, v0.xyxx
mov o0.zw, l(0,0,0,1.000000)
ret
