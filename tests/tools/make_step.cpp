// Test tool: writes CAD files through OpenCASCADE for the pack tests, so the STEP/IGES reader
// is tested on files a real CAD kernel wrote, not on text we typed.
//   make_step assembly OUT.step   plate (blue) + 8 instances of one bolt (orange) + a bracket (green)
//   make_step assembly OUT.igs    the same through IGES
//   make_step faces OUT.step      two instances of one block: blue, its top face orange (a colour
//                                 on a face sub-shape, as CAD systems write a coloured face)
//   make_step curves OUT.step     one edge, no solids or surfaces
#include <BRepBuilderAPI_MakeEdge.hxx>
#include <BRepPrimAPI_MakeBox.hxx>
#include <BRepPrimAPI_MakeCylinder.hxx>
#include <IGESCAFControl_Writer.hxx>
#include <STEPCAFControl_Writer.hxx>
#include <STEPControl_Writer.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_ColorTool.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <gp_Trsf.hxx>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_step assembly|faces|curves OUT.step|OUT.igs\n");
        return 2;
    }
    const std::string what = argv[1], out = argv[2];
    if (what == "curves") {
        STEPControl_Writer w;
        w.Transfer(BRepBuilderAPI_MakeEdge(gp_Pnt(0, 0, 0), gp_Pnt(10, 0, 0)).Edge(), STEPControl_AsIs);
        return w.Write(out.c_str()) == IFSelect_RetDone ? 0 : 1;
    }
    Handle(TDocStd_Document) doc;
    XCAFApp_Application::GetApplication()->NewDocument("MDTV-XCAF", doc);
    Handle(XCAFDoc_ShapeTool) st = XCAFDoc_DocumentTool::ShapeTool(doc->Main());
    Handle(XCAFDoc_ColorTool) ct = XCAFDoc_DocumentTool::ColorTool(doc->Main());
    TDF_Label assembly = st->NewShape();
    if (what == "faces") {
        TDataStd_Name::Set(assembly, "blocks");
        BRepPrimAPI_MakeBox box(60, 60, 30);
        const TopoDS_Shape shape = box.Shape();
        TDF_Label block = st->AddShape(shape, false);
        TDataStd_Name::Set(block, "block");
        ct->SetColor(block, Quantity_Color(0.1, 0.3, 0.9, Quantity_TOC_sRGB), XCAFDoc_ColorSurf);
        TDF_Label top = st->AddSubShape(block, box.TopFace());
        if (top.IsNull()) return 1;
        ct->SetColor(top, Quantity_Color(0.95, 0.5, 0.1, Quantity_TOC_sRGB), XCAFDoc_ColorSurf);
        for (int i = 0; i < 2; ++i) {
            gp_Trsf t;
            t.SetTranslation(gp_Vec(80 * i, 0, 0));
            st->AddComponent(assembly, block, TopLoc_Location(t));
        }
    } else {
        TDataStd_Name::Set(assembly, "gearbox");
        TDF_Label plate = st->AddShape(BRepPrimAPI_MakeBox(200, 100, 10).Shape(), false);
        TDataStd_Name::Set(plate, "plate");
        ct->SetColor(plate, Quantity_Color(0.1, 0.3, 0.9, Quantity_TOC_sRGB), XCAFDoc_ColorSurf);
        TDF_Label bolt = st->AddShape(BRepPrimAPI_MakeCylinder(6, 40).Shape(), false);
        TDataStd_Name::Set(bolt, "bolt");
        ct->SetColor(bolt, Quantity_Color(0.95, 0.5, 0.1, Quantity_TOC_sRGB), XCAFDoc_ColorSurf);
        TDF_Label bracket = st->AddShape(BRepPrimAPI_MakeBox(30, 60, 50).Shape(), false);
        TDataStd_Name::Set(bracket, "bracket");
        ct->SetColor(bracket, Quantity_Color(0.2, 0.8, 0.2, Quantity_TOC_sRGB), XCAFDoc_ColorSurf);
        st->AddComponent(assembly, plate, TopLoc_Location());
        for (int i = 0; i < 8; ++i) {
            gp_Trsf t;
            t.SetTranslation(gp_Vec(15 + 24 * (i % 4), 20 + 60 * (i / 4), 10));
            st->AddComponent(assembly, bolt, TopLoc_Location(t));
        }
        gp_Trsf b;
        b.SetTranslation(gp_Vec(160, 20, 10));
        st->AddComponent(assembly, bracket, TopLoc_Location(b));
    }
    st->UpdateAssemblies();
    if (out.size() > 4 && out.substr(out.size() - 4) == ".igs") {
        IGESCAFControl_Writer w;
        w.SetColorMode(true);
        w.SetNameMode(true);
        if (!w.Transfer(doc)) return 1;
        return w.Write(out.c_str()) ? 0 : 1;
    }
    STEPCAFControl_Writer w;
    w.SetColorMode(true);
    w.SetNameMode(true);
    if (!w.Transfer(doc, STEPControl_AsIs)) return 1;
    return w.Write(out.c_str()) == IFSelect_RetDone ? 0 : 1;
}
