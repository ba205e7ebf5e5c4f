// seatmark-cad-mesher: STEP or IGES -> .smpack through OpenCASCADE (Debian's libocct 7.6), run by
// `seatmark pack` as a child process. A process of its own because OCCT's meshing can hang on bad
// geometry (the parent kills it after a timeout, naming the part it last announced) and so that
// no other seatmark process loads OCCT. All OCCT code is in this one translation unit: its headers
// are slow to compile.
//
// Reads the XCAF document (assembly tree, instances, names, colours), meshes each prototype once
// with BRepMesh at an absolute linear and an angular deflection, and writes one mesh per prototype
// and face colour (faces with no colour of their own take the instance's) and one part per
// instance, drawn as one piece per mesh. Protocol on stdout, one line each:  "part I N NAME" before meshing
// prototype I of N, "done" at the end; errors on stderr, exit 2 for bad input.
#include <BRepMesh_IncrementalMesh.hxx>
#include <BRep_Tool.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <IGESCAFControl_Reader.hxx>
#include <Message_ProgressIndicator.hxx>
#include <Poly_Triangulation.hxx>
#include <Quantity_ColorRGBA.hxx>
#include <STEPCAFControl_Reader.hxx>
#include <Standard_Failure.hxx>
#include <TDF_LabelSequence.hxx>
#include <TDF_Tool.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <TopExp_Explorer.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Face.hxx>
#include <TopTools_ShapeMapHasher.hxx>
#include <NCollection_DataMap.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_ColorTool.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "import/build_pack.h"
#include "pack/pack_writer.h"

namespace {

using seatmark::InputError;
using namespace seatmark::import;

// Lets BRepMesh stop itself at the deadline (it polls UserBreak between faces); the parent's
// kill covers a hang inside one face.
class Deadline : public Message_ProgressIndicator {
public:
    explicit Deadline(double seconds)
        : end_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))) {}
    Standard_Boolean UserBreak() override { return std::chrono::steady_clock::now() > end_; }
    void Show(const Message_ProgressScope&, const Standard_Boolean) override {}

private:
    std::chrono::steady_clock::time_point end_;
};

struct Options {
    std::string input, out;
    double deflection = 0.1, angle_deg = 20, crease_deg = 30, timeout_s = 60;
};

std::string name_of(const TDF_Label& l) {
    Handle(TDataStd_Name) n;
    if (l.FindAttribute(TDataStd_Name::GetID(), n)) return TCollection_AsciiString(n->Get()).ToCString();
    return "";
}

uint32_t to_rgba(const Quantity_ColorRGBA& c) {
    Standard_Real r, g, b;
    c.GetRGB().Values(r, g, b, Quantity_TOC_sRGB);
    return rgba_from_float(r, g, b, c.Alpha());
}

class Walker {
public:
    Walker(const Options& o, Handle(XCAFDoc_ShapeTool) st, Handle(XCAFDoc_ColorTool) ct) : o_(o), st_(st), ct_(ct) {}

    // A colour set on this label itself, surface colour first (as XCAF's own presentation takes it).
    bool own_colour(const TDF_Label& l, uint32_t& rgba) const {
        Quantity_ColorRGBA c;
        if (!ct_->GetColor(l, XCAFDoc_ColorSurf, c) && !ct_->GetColor(l, XCAFDoc_ColorGen, c)) return false;
        rgba = to_rgba(c);
        return true;
    }

    // The colour of a prototype or component as a whole. Colours on its faces, shells or solids
    // (sub-shape labels) are not the part's colour: face_colours() draws those faces in them.
    bool colour_of(const TDF_Label& l, uint32_t& rgba) const {
        if (own_colour(l, rgba)) return true;
        const TopoDS_Shape s = XCAFDoc_ShapeTool::GetShape(l);
        Quantity_ColorRGBA c;
        if (s.IsNull() || (!ct_->GetColor(s, XCAFDoc_ColorSurf, c) && !ct_->GetColor(s, XCAFDoc_ColorGen, c))) return false;
        rgba = to_rgba(c);
        return true;
    }

    // Each face's own colour from the prototype's coloured sub-shapes (a face, or the shell or solid
    // holding it, as exporters write either); the most specific wins: a face's own colour over its
    // shell's over its solid's. Faces not in the map take the instance's colour.
    using FaceColours = NCollection_DataMap<TopoDS_Shape, uint32_t, TopTools_ShapeMapHasher>;
    FaceColours face_colours(const TDF_Label& proto) const {
        TDF_LabelSequence subs;
        XCAFDoc_ShapeTool::GetSubShapes(proto, subs);
        std::vector<std::pair<TopoDS_Shape, uint32_t>> coloured;
        for (Standard_Integer i = 1; i <= subs.Length(); ++i) {
            uint32_t rgba;
            const TopoDS_Shape s = XCAFDoc_ShapeTool::GetShape(subs.Value(i));
            if (!s.IsNull() && own_colour(subs.Value(i), rgba)) coloured.emplace_back(s, rgba);
        }
        // TopAbs_ShapeEnum runs from COMPOUND to VERTEX: later entries are more specific.
        std::stable_sort(coloured.begin(), coloured.end(),
                         [](const auto& a, const auto& b) { return a.first.ShapeType() < b.first.ShapeType(); });
        FaceColours out;
        for (const auto& sc : coloured)
            for (TopExp_Explorer ex(sc.first, TopAbs_FACE); ex.More(); ex.Next()) out.Bind(ex.Current(), sc.second);
        return out;
    }

    // Collects instances (prototype label, placement, colour, name) in tree order.
    void walk(const TDF_Label& label, const TopLoc_Location& loc, uint32_t rgba, const std::string& name, int depth) {
        if (depth > 64) throw InputError(o_.input + ": assembly tree deeper than 64 levels");
        colour_of(label, rgba);
        const std::string here = name.empty() ? name_of(label) : name;
        if (XCAFDoc_ShapeTool::IsAssembly(label)) {
            TDF_LabelSequence comps;
            XCAFDoc_ShapeTool::GetComponents(label, comps);
            for (Standard_Integer i = 1; i <= comps.Length(); ++i) {
                const TDF_Label comp = comps.Value(i);
                TDF_Label ref;
                if (!XCAFDoc_ShapeTool::GetReferredShape(comp, ref)) continue;
                uint32_t c = rgba;
                colour_of(comp, c);
                std::string cn = name_of(comp);
                if (cn.empty()) cn = name_of(ref);
                walk(ref, loc * XCAFDoc_ShapeTool::GetLocation(comp), c, cn, depth + 1);
            }
            return;
        }
        TCollection_AsciiString entry;
        TDF_Tool::Entry(label, entry);
        auto [it, fresh] = protos_.try_emplace(entry.ToCString(), uint32_t(labels_.size()));
        if (fresh) {
            labels_.push_back(label);
            names_.push_back(name_of(label).empty() ? here : name_of(label));
        }
        instances_.push_back({it->second, loc, rgba, here.empty() ? names_[it->second] : here});
    }

    ImportedModel mesh_all() {
        ImportedModel m;
        m.y_up = false;
        // Per prototype, its meshes: one per face colour; `rgba` inherit takes the instance's colour.
        struct Piece {
            uint32_t mesh;
            uint64_t rgba;
        };
        constexpr uint64_t inherit = 1ull << 32;
        std::vector<std::vector<Piece>> proto_pieces(labels_.size());
        uint64_t faces_total = 0, solids_total = 0;
        for (size_t i = 0; i < labels_.size(); ++i) {
            const std::string pname = names_[i].empty() ? "prototype " + std::to_string(i + 1) : names_[i];
            std::printf("part %zu %zu %s\n", i + 1, labels_.size(), pname.c_str());
            std::fflush(stdout);
            TopoDS_Shape shape = XCAFDoc_ShapeTool::GetShape(labels_[i]);
            if (shape.IsNull()) continue;
            for (TopExp_Explorer ex(shape, TopAbs_SOLID); ex.More(); ex.Next()) ++solids_total;
            IMeshTools_Parameters p;
            p.Deflection = o_.deflection;
            p.Angle = o_.angle_deg * M_PI / 180.0;
            p.Relative = Standard_False;
            p.InParallel = Standard_True;
            Handle(Deadline) deadline = new Deadline(o_.timeout_s);
            BRepMesh_IncrementalMesh mesher(shape, p, deadline->Start());
            if (deadline->UserBreak())
                throw InputError(o_.input + ": meshing part '" + pname + "' did not finish within " +
                                 std::to_string(int(o_.timeout_s)) + " s; raise --mesh-timeout or coarsen --deflection");
            const FaceColours colours = face_colours(labels_[i]);
            std::vector<std::pair<uint64_t, seatmark::workloads::Mesh>> groups;  // in order of first face
            for (TopExp_Explorer ex(shape, TopAbs_FACE); ex.More(); ex.Next()) {
                const TopoDS_Face& face = TopoDS::Face(ex.Current());
                ++faces_total;
                TopLoc_Location fl;
                Handle(Poly_Triangulation) tri = BRep_Tool::Triangulation(face, fl);
                if (tri.IsNull()) continue;
                const uint64_t key = colours.IsBound(face) ? colours.Find(face) : inherit;
                auto g = std::find_if(groups.begin(), groups.end(), [key](const auto& e) { return e.first == key; });
                if (g == groups.end()) g = groups.insert(groups.end(), {key, {}});
                seatmark::workloads::Mesh& mesh = g->second;
                const gp_Trsf ft = fl.Transformation();
                const uint32_t base = uint32_t(mesh.positions.size());
                for (Standard_Integer n = 1; n <= tri->NbNodes(); ++n) {
                    const gp_Pnt q = tri->Node(n).Transformed(ft);
                    mesh.positions.push_back({float(q.X()), float(q.Y()), float(q.Z())});
                }
                const bool reversed = face.Orientation() == TopAbs_REVERSED;
                for (Standard_Integer t = 1; t <= tri->NbTriangles(); ++t) {
                    Standard_Integer a, b, c;
                    tri->Triangle(t).Get(a, b, c);
                    if (reversed) std::swap(b, c);
                    mesh.triangles.insert(mesh.triangles.end(), {base + uint32_t(a - 1), base + uint32_t(b - 1), base + uint32_t(c - 1)});
                }
            }
            for (auto& [key, mesh] : groups) {
                if (mesh.triangles.empty()) continue;  // wires, points: nothing to draw
                proto_pieces[i].push_back({uint32_t(m.meshes.size()), key});
                m.meshes.push_back(std::move(mesh));
                m.mesh_names.push_back(proto_pieces[i].size() == 1 ? pname : pname + " (face colour " + std::to_string(proto_pieces[i].size()) + ")");
            }
        }
        if (faces_total == 0)
            throw InputError(o_.input + ": contains no solids or surfaces (" + std::to_string(labels_.size()) +
                             " shapes, none with faces): nothing to draw; export the bodies, not only curves or points");
        if (solids_total == 0) m.notes.push_back("no solids: drawing surfaces only");
        for (const auto& inst : instances_) {
            const uint32_t first = uint32_t(m.parts.size());
            for (const Piece& piece : proto_pieces[inst.proto]) {
                ImportedPart part;
                part.mesh = piece.mesh;
                const gp_Trsf t = inst.loc.Transformation();
                for (int c = 0; c < 4; ++c)
                    for (int r = 0; r < 3; ++r) part.transform[size_t(c * 4 + r)] = float(t.Value(r + 1, c + 1));
                part.transform[3] = part.transform[7] = part.transform[11] = 0;
                part.transform[15] = 1;
                part.rgba = piece.rgba == inherit ? inst.rgba : uint32_t(piece.rgba);
                part.name = inst.name;
                if (m.parts.size() > first) part.piece_of = first;
                m.parts.push_back(std::move(part));
            }
        }
        return m;
    }

private:
    struct Instance {
        uint32_t proto;
        TopLoc_Location loc;
        uint32_t rgba;
        std::string name;
    };
    const Options& o_;
    Handle(XCAFDoc_ShapeTool) st_;
    Handle(XCAFDoc_ColorTool) ct_;
    std::map<std::string, uint32_t> protos_;
    std::vector<TDF_Label> labels_;
    std::vector<std::string> names_;
    std::vector<Instance> instances_;
};

int run(const Options& o) {
    Handle(TDocStd_Document) doc;
    XCAFApp_Application::GetApplication()->NewDocument("MDTV-XCAF", doc);
    std::string ext = o.input.substr(o.input.find_last_of('.') + 1);
    for (auto& ch : ext) ch = char(std::tolower(ch));
    const bool iges = ext == "igs" || ext == "iges";
    bool ok = false;
    if (iges) {
        IGESCAFControl_Reader r;
        r.SetColorMode(true);
        r.SetNameMode(true);
        if (r.ReadFile(o.input.c_str()) != IFSelect_RetDone)
            throw InputError(o.input + ": not a readable IGES file");
        ok = r.Transfer(doc);
    } else {
        STEPCAFControl_Reader r;
        r.SetColorMode(true);
        r.SetNameMode(true);
        if (r.ReadFile(o.input.c_str()) != IFSelect_RetDone)
            throw InputError(o.input + ": not a readable STEP file (ISO 10303-21 expected)");
        ok = r.Transfer(doc);
    }
    if (!ok) throw InputError(o.input + ": OpenCASCADE could not transfer its shapes");
    Handle(XCAFDoc_ShapeTool) st = XCAFDoc_DocumentTool::ShapeTool(doc->Main());
    Handle(XCAFDoc_ColorTool) ct = XCAFDoc_DocumentTool::ColorTool(doc->Main());
    TDF_LabelSequence roots;
    st->GetFreeShapes(roots);
    if (roots.IsEmpty()) throw InputError(o.input + ": contains no shapes (no solids)");
    Walker w(o, st, ct);
    for (Standard_Integer i = 1; i <= roots.Length(); ++i) w.walk(roots.Value(i), TopLoc_Location(), 0xffb0b0b0, "", 0);
    ImportedModel model = w.mesh_all();
    for (const auto& n : model.notes) std::printf("note %s\n", n.c_str());
    BuildStats stats;
    auto contents = build_pack(std::move(model), o.crease_deg, o.input, stats);
    seatmark::pack::write_pack(contents, o.out);
    std::printf("done\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--out") o.out = next();
        else if (a == "--deflection") o.deflection = std::atof(next().c_str());
        else if (a == "--angle") o.angle_deg = std::atof(next().c_str());
        else if (a == "--crease") o.crease_deg = std::atof(next().c_str());
        else if (a == "--timeout") o.timeout_s = std::atof(next().c_str());
        else if (a == "--help") {
            std::printf("seatmark-cad-mesher: run by 'seatmark pack' for STEP and IGES files; see 'seatmark pack --help'.\n");
            return 0;
        } else o.input = a;
    }
    if (o.input.empty() || o.out.empty()) {
        std::fprintf(stderr, "usage: seatmark-cad-mesher INPUT.step --out FILE.smpack (run by 'seatmark pack')\n");
        return 2;
    }
    try {
        return run(o);
    } catch (const InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const Standard_Failure& e) {
        std::fprintf(stderr, "%s: OpenCASCADE failed: %s\n", o.input.c_str(), e.GetMessageString());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", o.input.c_str(), e.what());
        return 1;
    }
}
