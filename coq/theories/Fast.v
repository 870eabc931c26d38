(** * The checker's evaluation: docs/spec.md §1 with speed-ups proved in Soundness.v

    The same numbers ([Q]) and the same order of layers as Semantics.v; what changes is
    how much is computed:
    - zero and one coefficients are not multiplied, integers take integer paths,
      rationals are kept reduced;
    - an identity layer is skipped;
    - FF units that share a row [u] of [U] share one projection [s = <u, x>]; a unit is
      active iff [s > -b_k]; a token on which no unit is active is unchanged, and one on
      which every unit is active moves by [s Σ W_k + Σ b_k W_k] (nothing when both sums
      are zero, e.g. a hat far from its point);
    - a rank-one [A = a bᵀ] (no identity part) scores [s_il = <b, x_i> <a, x_l>], an
      outer product of projections: the argmax set is that of [<a, x_l>], of its
      negation, or every key, by the sign of [<b, x_i>];
    - each token carries one projection [<r, x>] (a cache whose value is proved), so a
      run of layers that project on the same [r] does not recompute it. *)
From Coq Require Import QArith Qminmax List Bool.
From Proofcheck Require Import Semantics.
Import ListNotations.
Open Scope Q_scope.

(** ** Rationals: cheap special cases *)
Definition qzero (x : Q) : bool := match Qnum x with Z0 => true | _ => false end.
Definition qone (x : Q) : bool := match x with Qmake (Zpos xH) xH => true | _ => false end.
Definition qint (x : Q) : bool := match Qden x with xH => true | _ => false end.
Definition qnorm (x : Q) : Q := if qint x then x else Qred x.
Definition qadd (x y : Q) : Q :=
  if qzero x then y else if qzero y then x
  else if qint x && qint y then Qmake (Qnum x + Qnum y) 1 else x + y.
Definition qmul (x y : Q) : Q :=
  if qzero x || qzero y then 0 else if qone x then y else if qone y then x
  else if qint x && qint y then Qmake (Qnum x * Qnum y) 1 else x * y.
Definition qle (x y : Q) : bool :=
  if qint x && qint y then Z.leb (Qnum x) (Qnum y) else Qle_bool x y.
Definition qeqb (x y : Q) : bool :=
  if qint x && qint y then Z.eqb (Qnum x) (Qnum y) else Qeq_bool x y.
Definition qmax (x y : Q) : Q := if qle x y then y else x.
Definition qpos (x : Q) : bool := Z.ltb 0 (Qnum x).
Definition qsame (x y : Q) : bool := Z.eqb (Qnum x) (Qnum y) && Pos.eqb (Qden x) (Qden y).

(** ** Vectors *)
Fixpoint dotf (u x : vec) : Q :=
  match u, x with
  | a :: u', c :: x' => if qzero a then dotf u' x' else qadd (qmul a c) (dotf u' x')
  | _, _ => 0
  end.

Definition scalef (c : Q) (x : vec) : vec :=
  if qone c then x else map (fun a => qnorm (qmul c a)) x.

(** [x + z w]; the coordinates where [w] is zero are kept as they are. *)
Fixpoint axpy (z : Q) (w x : vec) : vec :=
  match w, x with
  | a :: w', c :: x' => (if qzero a then c else qnorm (qadd c (qmul z a))) :: axpy z w' x'
  | [], _ => x
  | _, [] => map (fun a => qnorm (qmul z a)) w
  end.

Fixpoint vaddf (x y : vec) : vec :=
  match x, y with
  | a :: x', c :: y' => qnorm (qadd a c) :: vaddf x' y'
  | [], _ => y
  | _, [] => x
  end.

Definition vsumf (xs : list vec) : vec := fold_right vaddf [] xs.

Fixpoint rowb (x y : vec) : bool :=
  match x, y with
  | a :: x', c :: y' => qsame a c && rowb x' y'
  | [], [] => true
  | _, _ => false
  end.

Fixpoint veqb (x y : vec) : bool :=
  match x, y with
  | a :: x', c :: y' => qeqb a c && veqb x' y'
  | [], [] => true
  | _, _ => false
  end.

(** ** Tokens with one cached projection: [tc = Some (r, p)] means [p = <r, tx>] *)
Record tok := Tok { tx : vec; tc : option (vec * Q) }.

Definition proj (r : vec) (t : tok) : Q :=
  match tc t with
  | Some (r', p) => if rowb r r' then p else dotf r (tx t)
  | None => dotf r (tx t)
  end.

(** ** FF: units grouped by their row of [U] *)

(** A group: the row [u] its units share, their [(b_k, W_k)], the thresholds [-b_k],
    the sums [Σ_k W_k], [Σ_k b_k W_k] (its term when every unit is active) and a flag:
    both sums are zero. *)
Record fgroup := FGroup { g_row : vec; g_units : list (Q * vec); g_thr : list Q;
                          g_sw : vec; g_sbw : vec; g_zero : bool }.
Record pff := PFF { pf_skip : bool; pf_eta : Q; pf_groups : list fgroup }.

Fixpoint group (units : list (vec * Q * vec)) : list (vec * list (Q * vec)) :=
  match units with
  | [] => []
  | (u, bk, w) :: rest =>
      match group rest with
      | (u', ms) :: gs =>
          if rowb u u' then (u', (bk, w) :: ms) :: gs else (u, [(bk, w)]) :: (u', ms) :: gs
      | [] => [(u, [(bk, w)])]
      end
  end.

Definition allzero (x : vec) : bool := forallb qzero x.

Definition prep_group (g : vec * list (Q * vec)) : fgroup :=
  let sw := vsumf (map snd (snd g)) in
  let sbw := vsumf (map (fun bw => scalef (fst bw) (snd bw)) (snd g)) in
  FGroup (fst g) (snd g) (map (fun bw => Qopp (fst bw)) (snd g)) sw sbw
         (allzero sw && allzero sbw).

Definition prep_ff (f : ff Q) : pff :=
  let units := combine (combine (U f) (b f)) (W f) in
  PFF (qone (eta f) && match units with [] => true | _ => false end) (eta f)
      (map prep_group (group units)).

(** Unit by unit: [acc + Σ_k σ(s + b_k) W_k], inactive units skipped. *)
Definition units_each (s : Q) (ms : list (Q * vec)) (acc : vec) : vec :=
  fold_right (fun bw acc => let z := qadd s (fst bw) in
                            if qle z 0 then acc else axpy z (snd bw) acc) acc ms.

(** [Some]: the group's term added to [acc]; [None]: it adds nothing. *)
Definition units_fast (s : Q) (g : fgroup) (acc : vec) : option vec :=
  let active := map (fun t => negb (qle s t)) (g_thr g) in
  if forallb negb active then None
  else if forallb (fun a => a) active then
    (if g_zero g then None else Some (axpy s (g_sw g) (vaddf (g_sbw g) acc)))
  else Some (units_each s (g_units g) acc).

Definition ff_vec (p : pff) (t : tok) : vec :=
  fold_right (fun g acc => match units_fast (proj (g_row g) t) g acc with
                           | Some a => a | None => acc end)
             (scalef (pf_eta p) (tx t)) (pf_groups p).

Definition ff_unchanged (p : pff) (t : tok) : bool :=
  qone (pf_eta p) &&
  forallb (fun g => match units_fast (proj (g_row g) t) g [] with
                    | None => true | Some _ => false end) (pf_groups p).

(** An unchanged token keeps its vector and caches its first group's projection. *)
Definition ff_fast (p : pff) (t : tok) : tok :=
  if pf_skip p then t
  else if ff_unchanged p t then
    match pf_groups p with
    | g :: _ => Tok (tx t) (Some (g_row g, proj (g_row g) t))
    | [] => t
    end
  else Tok (ff_vec p t) None.

(** ** SA *)
Definition smax (s : list Q) : Q := fold_right qmax (hd 0 s) s.

(** The keys on the argmax set of the scores [s]. *)
Definition select (s : list Q) (keys : list vec) : list vec :=
  let m := smax s in map snd (filter (fun sk => qeqb (fst sk) m) (combine s keys)).

Definition avg (C : list vec) : vec :=
  scalef (Qred (1 / inject_Z (Z.of_nat (length C)))) (vsumf C).

Definition fapplyf (M : factored Q) (y : vec) : vec :=
  fold_right (fun ab acc => let c := dotf (snd ab) y in
                            if qzero c then acc else axpy c (fst ab) acc)
             (scalef (lam M) y) (combine (left M) (right M)).

Inductive phead :=
  | PRank1 (a b : vec) (same : bool) (Vh : factored Q)   (* A = a bᵀ *)
  | PGen (Ah Vh : factored Q).

Definition prep_head (h : head Q) : phead :=
  match left (A h), right (A h) with
  | [a], [b'] => if qzero (lam (A h)) then PRank1 a b' (rowb a b') (V h) else PGen (A h) (V h)
  | _, _ => PGen (A h) (V h)
  end.

(** Rank one: the argmax set of [p q_l] over the keys, by the sign of [p]. *)
Definition select1 (p : Q) (qs : list Q) (K : list vec) : list vec :=
  if qpos p then select qs K else if qzero p then K else select (map Qopp qs) K.

Definition head_gen (Ah Vh : factored Q) (c : bool) (X : list vec) : list vec :=
  map (fun ix => let K := keys c (fst ix) X in
                 fapplyf Vh (avg (select (map (dotf (fapplyf Ah (snd ix))) K) K)))
      (combine (seq 0 (length X)) X).

(** The three values a rank-one head can give a token of an unmasked sequence. *)
Record cases := Cases { c_max : vec; c_all : vec; c_min : vec }.

Definition rank1_cases (qs ps : list Q) (Vh : factored Q) (X : list vec) : cases :=
  Cases (if existsb qpos ps then fapplyf Vh (avg (select qs X)) else [])
        (if existsb qzero ps then fapplyf Vh (avg X) else [])
        (if existsb (fun p => negb (qpos p || qzero p)) ps
         then fapplyf Vh (avg (select (map Qopp qs) X)) else []).

Definition pick (cs : cases) (p : Q) : vec :=
  if qpos p then c_max cs else if qzero p then c_all cs else c_min cs.

Definition pickq (q1 q2 q3 p : Q) : Q := if qpos p then q1 else if qzero p then q2 else q3.

Definition head_rank1 (a b' : vec) (same : bool) (Vh : factored Q) (c : bool) (X : list vec) :=
  let qs := map (dotf a) X in
  let ps := if same then qs else map (dotf b') X in
  if c then
    map (fun ip => fapplyf Vh (avg (select1 (snd ip) (firstn (S (fst ip)) qs)
                                            (keys true (fst ip) X))))
        (combine (seq 0 (length X)) ps)
  else map (pick (rank1_cases qs ps Vh X)) ps.

Definition head_fast (h : phead) (c : bool) (X : list vec) : list vec :=
  match h with
  | PRank1 a b' same Vh => head_rank1 a b' same Vh c X
  | PGen Ah Vh => head_gen Ah Vh c X
  end.

Record psa := PSA { ps_skip : bool; ps_rho : Q; ps_heads : list phead; ps_causal : bool }.

Definition vzero (M : factored Q) : bool :=
  qzero (lam M) && match left M with [] => true | _ => false end.

Definition prep_sa (a : sa Q) : psa :=
  PSA (qone (rho a) && forallb (fun h => vzero (V h)) (heads a))
      (rho a) (map prep_head (heads a)) (causal a).

Fixpoint zipadd (xs ys : list vec) : list vec :=
  match xs, ys with x :: xs', y :: ys' => vaddf x y :: zipadd xs' ys' | _, _ => [] end.

Definition sa_vec (p : psa) (X : list vec) : list vec :=
  zipadd (map (scalef (ps_rho p)) X)
         (fold_right (fun h acc => zipadd (head_fast h (ps_causal p) X) acc)
                     (map (fun _ => []) X) (ps_heads p)).

(** One unmasked rank-one head and [ρ = 1] (a tag): [x_i + v] with [v] one of three
    vectors; the cached projection on [b] moves by [<b, v>]. *)
Definition tag_fast (a b' : vec) (same : bool) (Vh : factored Q) (T : list tok) : list tok :=
  let X := map tx T in
  let ps := map (proj b') T in
  let qs := if same then ps else map (dotf a) X in
  let cs := rank1_cases qs ps Vh X in
  let dmax := dotf b' (c_max cs) in
  let dall := dotf b' (c_all cs) in
  let dmin := dotf b' (c_min cs) in
  map (fun tp => let p := snd tp in
                 Tok (vaddf (tx (fst tp)) (vaddf (pick cs p) []))
                     (Some (b', qadd p (pickq dmax dall dmin p))))
      (combine T ps).

Definition sa_fast (p : psa) (T : list tok) : list tok :=
  if ps_skip p then T
  else match ps_heads p, ps_causal p, qone (ps_rho p) with
       | [PRank1 a b' same Vh], false, true => tag_fast a b' same Vh T
       | _, _, _ => map (fun x => Tok x None) (sa_vec p (map tx T))
       end.

(** ** Blocks and the network *)
Definition pblock := (pff * psa)%type.
Definition prepare (net : list (block Q)) : list pblock :=
  map (fun bl => (prep_ff (ff_of bl), prep_sa (sa_of bl))) net.

Definition run (pn : list pblock) (X : list vec) : list vec :=
  map tx (fold_left (fun T pb => sa_fast (snd pb) (map (ff_fast (fst pb)) T)) pn
                    (map (fun x => Tok (map qnorm x) None) X)).

(** ** The checks *)
Definition set_equalb (out targets : list vec) : bool :=
  forallb (fun x => existsb (veqb x) targets) out &&
  forallb (fun y => existsb (fun x => veqb x y) out) targets.

Definition check_pairs (pn : list pblock) (data : list (list vec * list vec)) : bool :=
  forallb (fun XY => set_equalb (run pn (fst XY)) (snd XY)) data.
